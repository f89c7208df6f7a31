-- sudija: rebuilds a table (foreign keys off while it runs, checked before it commits: storage/database.py)
-- The third club's appeals are reports of an incident in a game, not appeals of a verdict (decisions.md, the
-- other clubs' packs): an appeal concerns a recorded trial or, as a report, a game (`trial` NULL, `game` set; a
-- row of before has its trial's game). A report carries the table's chat as files the member uploaded.
-- SQLite cannot drop a NOT NULL in place: the appeals are made anew, their rows copied; the tables that point
-- at them keep pointing by name.
PRAGMA legacy_alter_table = ON;
ALTER TABLE appeals RENAME TO appeals_before_0034;
CREATE TABLE appeals (
    id              INTEGER PRIMARY KEY,
    trial           INTEGER REFERENCES trials(id),            -- the trial appealed against (NULL: a report)
    game            INTEGER REFERENCES games(number),         -- the game it concerns (NULL only in rows of before)
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
INSERT INTO appeals (id, trial, game, appellant, kind, text, filed_at, ping_at, pinged, review_deadline, reminded,
                     overdue, state, councilor, taken_at, hearing, decided_at, reason, restriction_days)
    SELECT a.id, a.trial, t.game, a.appellant, a.kind, a.text, a.filed_at, a.ping_at, a.pinged, a.review_deadline,
           a.reminded, a.overdue, a.state, a.councilor, a.taken_at, a.hearing, a.decided_at, a.reason,
           a.restriction_days
    FROM appeals_before_0034 a LEFT JOIN trials t ON t.id = a.trial;
DROP TABLE appeals_before_0034;
PRAGMA legacy_alter_table = OFF;
CREATE UNIQUE INDEX appeals_one_per_party ON appeals (trial, appellant);
CREATE UNIQUE INDEX appeals_one_report ON appeals (game, appellant, kind) WHERE trial IS NULL;
CREATE INDEX appeals_by_hearing ON appeals (hearing);

CREATE TABLE appeal_files (                 -- what a member attached to his appeal or report (the table's chat)
    id            INTEGER PRIMARY KEY,
    appeal        INTEGER NOT NULL REFERENCES appeals(id),
    name          TEXT    NOT NULL,
    content_type  TEXT    NOT NULL,
    size          INTEGER NOT NULL,
    data          BLOB    NOT NULL,
    at            TEXT    NOT NULL
);
CREATE INDEX appeal_files_by_appeal ON appeal_files (appeal);
