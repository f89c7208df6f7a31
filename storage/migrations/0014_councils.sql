-- The councilors' votes on admitting and dismissing referees and councilors (issue 19), with every ballot;
-- appeals against recorded trials, their claim by a councilor and his decision; appeal restrictions.
CREATE TABLE votes (
    id          INTEGER PRIMARY KEY,
    proposer    INTEGER NOT NULL REFERENCES members(id),
    subject     INTEGER NOT NULL REFERENCES members(id),
    role        TEXT    NOT NULL CHECK (role IN ('referee', 'councilor')),
    action      TEXT    NOT NULL CHECK (action IN ('appoint', 'dismiss')),
    reason      TEXT    NOT NULL,
    opened_at   TEXT    NOT NULL,
    deadline    TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'carried', 'failed')),
    closed_at   TEXT
);
CREATE UNIQUE INDEX votes_one_open ON votes (subject, role) WHERE state = 'open';

CREATE TABLE ballots (
    vote    INTEGER NOT NULL REFERENCES votes(id),
    member  INTEGER NOT NULL REFERENCES members(id),
    yes     INTEGER NOT NULL,
    at      TEXT    NOT NULL,
    PRIMARY KEY (vote, member)
);

CREATE TABLE appeals (
    id              INTEGER PRIMARY KEY,
    trial           INTEGER NOT NULL REFERENCES trials(id),   -- the trial appealed against
    appellant       INTEGER NOT NULL REFERENCES members(id),
    kind            TEXT    NOT NULL,                         -- the club's appeal kind (its window)
    text            TEXT    NOT NULL DEFAULT '',
    filed_at        TEXT    NOT NULL,
    ping_at         TEXT    NOT NULL,                         -- unclaimed by then: every councilor is told
    pinged          INTEGER NOT NULL DEFAULT 0,
    review_deadline TEXT    NOT NULL,
    reminded        INTEGER NOT NULL DEFAULT 0,
    overdue         INTEGER NOT NULL DEFAULT 0,                -- the councilors were told the deadline passed
    state           TEXT    NOT NULL DEFAULT 'filed'
                    CHECK (state IN ('filed', 'taken', 'upheld', 'rejected', 'inadmissible')),
    councilor       INTEGER REFERENCES members(id),
    taken_at        TEXT,
    hearing         INTEGER REFERENCES trials(id),            -- the councilor's trial hearing the appellant
    decided_at      TEXT,
    reason          TEXT,
    restriction_days INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX appeals_one_per_party ON appeals (trial, appellant);
CREATE INDEX appeals_by_hearing ON appeals (hearing);

CREATE TABLE appeal_bans (
    member  INTEGER PRIMARY KEY REFERENCES members(id),
    until   TEXT    NOT NULL,
    by      INTEGER REFERENCES members(id),
    reason  TEXT,
    at      TEXT    NOT NULL
);

CREATE TABLE appeal_pings (                -- the councilors told of an appeal waiting for Preuzmi
    appeal  INTEGER NOT NULL REFERENCES appeals(id),
    member  INTEGER NOT NULL REFERENCES members(id),
    at      TEXT    NOT NULL,
    PRIMARY KEY (appeal, member)
);
