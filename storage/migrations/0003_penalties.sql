-- Out-of-game verdicts taking effect: penalties (plavac days, league penalty points, napustio) and their lifting,
-- each member's running plavac (its end is a durable deadline), who is counted as having abandoned each
-- interrupted game, manually settled games, the league months closed and their frozen standings, and a marker
-- per trial whose verdict has taken effect (so a crash between recording and taking effect is repaired at start).
CREATE TABLE penalties (
    id               INTEGER PRIMARY KEY,
    game             INTEGER NOT NULL REFERENCES games(number),
    trial            INTEGER NOT NULL REFERENCES trials(id),
    member           INTEGER NOT NULL REFERENCES members(id),
    plavac_days      INTEGER NOT NULL DEFAULT 0,
    league_points    INTEGER NOT NULL DEFAULT 0,
    abandoned        INTEGER NOT NULL DEFAULT 0,
    month            TEXT    NOT NULL,    -- YYYY-MM: the league month the points count in
    imposed_at       TEXT    NOT NULL,
    lifted_at        TEXT,
    lifted_by_trial  INTEGER REFERENCES trials(id),
    points_returned  INTEGER,             -- when lifted or cancelled: 1 the month was open, 0 it was closed
    points_cancelled_at TEXT              -- the game was settled by hand: its league penalty points are cancelled
);
CREATE UNIQUE INDEX penalties_one_per_trial ON penalties (trial);
CREATE INDEX penalties_by_game ON penalties (game);
CREATE INDEX penalties_by_member ON penalties (member, month);

CREATE TABLE plavac (
    member  INTEGER PRIMARY KEY REFERENCES members(id),
    until   TEXT    NOT NULL,
    active  INTEGER NOT NULL DEFAULT 1,   -- 0 once it ran out or was lifted away (the game server was told)
    since   TEXT    NOT NULL
);
CREATE INDEX plavac_active ON plavac (until) WHERE active = 1;

CREATE TABLE napustio (
    game          INTEGER PRIMARY KEY REFERENCES games(number),
    first_leaver  TEXT,                   -- from the log: abandoned_by[0]
    counted       TEXT COLLATE NOCASE,    -- who is counted as having abandoned it now (NULL: nobody)
    source        TEXT    NOT NULL CHECK (source IN ('log', 'verdict', 'nobody', 'settlement')),
    trial         INTEGER REFERENCES trials(id),
    rated         INTEGER NOT NULL,
    month         TEXT    NOT NULL,       -- the month of the interruption
    at            TEXT    NOT NULL
);
CREATE INDEX napustio_by_counted ON napustio (counted, month);

CREATE TABLE settlements (
    game     INTEGER PRIMARY KEY REFERENCES games(number),
    trial    INTEGER NOT NULL REFERENCES trials(id),
    at       TEXT    NOT NULL,
    counts   INTEGER NOT NULL             -- 1: counts as a finished game (big enough)
);

CREATE TABLE league_months (
    month      TEXT PRIMARY KEY,          -- YYYY-MM, closed
    closed_at  TEXT    NOT NULL,
    closed_by  INTEGER REFERENCES members(id),
    how        TEXT    NOT NULL CHECK (how IN ('admin', 'grace'))
);

CREATE TABLE league_standings (           -- frozen when the month closes
    month           TEXT    NOT NULL REFERENCES league_months(month),
    member          INTEGER NOT NULL REFERENCES members(id),
    games           INTEGER NOT NULL,
    game_points     INTEGER NOT NULL,
    abandon_points  INTEGER NOT NULL,
    penalty_points  INTEGER NOT NULL,
    abandoned       INTEGER NOT NULL,
    PRIMARY KEY (month, member)
);

CREATE TABLE verdict_effects (
    trial  INTEGER PRIMARY KEY REFERENCES trials(id),
    at     TEXT    NOT NULL
);
