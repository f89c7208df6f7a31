-- The referee desk: members and roles, calls, trials with their transcripts, councilor calls, paper changes,
-- message copies to update, and the event history. Deadlines live in calls / councilor_calls: the database
-- is the truth and the scheduler only re-reads it.
CREATE TABLE members (
    id                  INTEGER PRIMARY KEY,
    nick                TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    on_duty             INTEGER NOT NULL DEFAULT 1,
    online              INTEGER NOT NULL DEFAULT 0,
    presence_changed_at TEXT,
    in_club             INTEGER NOT NULL DEFAULT 1,
    created_at          TEXT    NOT NULL
);

CREATE TABLE accounts (
    platform  TEXT    NOT NULL,           -- console, discord, telegram
    account   TEXT    NOT NULL,           -- the platform's user id
    member    INTEGER NOT NULL REFERENCES members(id),
    PRIMARY KEY (platform, account)
);
CREATE INDEX accounts_by_member ON accounts (member);

CREATE TABLE roles (
    member      INTEGER NOT NULL REFERENCES members(id),
    role        TEXT    NOT NULL CHECK (role IN ('referee', 'councilor', 'moderator')),
    granted_at  TEXT    NOT NULL,
    granted_by  INTEGER REFERENCES members(id),
    PRIMARY KEY (member, role)
);

CREATE TABLE seating (
    member  INTEGER PRIMARY KEY REFERENCES members(id),
    game    INTEGER NOT NULL,
    since   TEXT    NOT NULL
);

CREATE TABLE call_bans (
    member  INTEGER PRIMARY KEY REFERENCES members(id),
    until   TEXT,                         -- NULL: until restored
    by      INTEGER REFERENCES members(id),
    reason  TEXT,
    at      TEXT    NOT NULL
);

CREATE TABLE calls (
    id          INTEGER PRIMARY KEY,
    game        INTEGER NOT NULL REFERENCES games(number),
    caller      INTEGER NOT NULL REFERENCES members(id),
    in_game     INTEGER NOT NULL,
    created_at  TEXT    NOT NULL,
    deadline    TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'taken', 'withdrawn', 'expired')),
    referee     INTEGER REFERENCES members(id),
    closed_at   TEXT
);
CREATE UNIQUE INDEX calls_one_pending_per_game ON calls (game) WHERE state = 'pending';
CREATE UNIQUE INDEX calls_one_pending_per_caller ON calls (caller) WHERE state = 'pending';
CREATE INDEX calls_by_game ON calls (game);
CREATE INDEX calls_pending_deadline ON calls (deadline) WHERE state = 'pending';

CREATE TABLE call_pings (
    call    INTEGER NOT NULL REFERENCES calls(id),
    member  INTEGER NOT NULL REFERENCES members(id),
    at      TEXT    NOT NULL,
    PRIMARY KEY (call, member)
);

CREATE TABLE trials (
    id          INTEGER PRIMARY KEY,
    call        INTEGER NOT NULL UNIQUE REFERENCES calls(id),
    game        INTEGER NOT NULL REFERENCES games(number),
    in_game     INTEGER NOT NULL,
    caller      INTEGER NOT NULL REFERENCES members(id),
    referee     INTEGER NOT NULL REFERENCES members(id),
    opened_at   TEXT    NOT NULL,
    closed_at   TEXT,
    outcome     TEXT    NOT NULL DEFAULT 'open'
                CHECK (outcome IN ('open', 'verdict', 'no_verdict', 'interrupted')),
    end_reason  TEXT,
    draft       TEXT,                     -- JSON: the referee's current draft verdict
    verdict     TEXT,                     -- JSON: the recorded verdict (never edited)
    reason      TEXT
);
CREATE UNIQUE INDEX trials_one_open_per_game ON trials (game) WHERE outcome = 'open';
CREATE UNIQUE INDEX trials_one_open_per_referee ON trials (referee) WHERE outcome = 'open';
CREATE INDEX trials_by_game ON trials (game);

CREATE TABLE trial_games (                -- Promeni…: the games a trial was about, in order
    trial   INTEGER NOT NULL REFERENCES trials(id),
    game    INTEGER NOT NULL REFERENCES games(number),
    since   TEXT    NOT NULL,
    PRIMARY KEY (trial, game, since)
);

CREATE TABLE trial_participants (
    trial      INTEGER NOT NULL REFERENCES trials(id),
    member     INTEGER NOT NULL REFERENCES members(id),
    role       TEXT    NOT NULL CHECK (role IN ('caller', 'player', 'referee', 'councilor')),
    joined_at  TEXT    NOT NULL,
    PRIMARY KEY (trial, member)
);

CREATE TABLE trial_messages (
    id      INTEGER PRIMARY KEY,
    trial   INTEGER NOT NULL REFERENCES trials(id),
    member  INTEGER REFERENCES members(id),   -- NULL: the bot
    text    TEXT    NOT NULL,
    at      TEXT    NOT NULL
);
CREATE INDEX trial_messages_by_trial ON trial_messages (trial, id);

CREATE TABLE councilor_calls (
    id          INTEGER PRIMARY KEY,
    trial       INTEGER NOT NULL REFERENCES trials(id),
    created_at  TEXT    NOT NULL,
    deadline    TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'taken', 'expired', 'cancelled')),
    councilor   INTEGER REFERENCES members(id),
    closed_at   TEXT
);
CREATE UNIQUE INDEX councilor_calls_one_pending ON councilor_calls (trial) WHERE state = 'pending';

CREATE TABLE paper_changes (
    id            INTEGER PRIMARY KEY,
    game          INTEGER NOT NULL REFERENCES games(number),
    hand          INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    data          TEXT    NOT NULL,       -- JSON of the change
    by_member     INTEGER REFERENCES members(id),
    at            TEXT    NOT NULL,
    reason        TEXT,
    trial         INTEGER REFERENCES trials(id),
    cancelled_at  TEXT
);
CREATE INDEX paper_changes_by_game ON paper_changes (game);

CREATE TABLE notices (                    -- every copy of a call's message, so each can be edited later
    id        INTEGER PRIMARY KEY,
    subject   TEXT NOT NULL,              -- 'call:<id>' or 'councilor:<id>'
    platform  TEXT NOT NULL,
    place     TEXT NOT NULL,
    message   TEXT NOT NULL
);
CREATE INDEX notices_by_subject ON notices (subject);

CREATE TABLE events (
    id       INTEGER PRIMARY KEY,
    at       TEXT    NOT NULL,
    kind     TEXT    NOT NULL,
    actor    INTEGER REFERENCES members(id),
    subject  TEXT,
    data     TEXT
);
CREATE INDEX events_by_kind ON events (kind, at);
