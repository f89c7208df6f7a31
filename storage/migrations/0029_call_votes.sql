-- sudija: rebuilds a table (foreign keys off while it runs, checked before it commits: storage/database.py)
-- A single councilor's /uskrati is a proposal too (decisions.md, Trials: denying the right to call is a
-- councilors' vote or the owner's act): a vote may deny a member the right to call (action 'deny_call', no
-- function, until `until` or until restored). SQLite cannot change a CHECK in place: the table is made anew,
-- its rows copied; the ballots keep pointing at it by name.
PRAGMA legacy_alter_table = ON;
ALTER TABLE votes RENAME TO votes_before_0029;
CREATE TABLE votes (
    id          INTEGER PRIMARY KEY,
    proposer    INTEGER NOT NULL REFERENCES members(id),
    subject     INTEGER NOT NULL REFERENCES members(id),
    role        TEXT    CHECK (role IN ('referee', 'councilor')),   -- NULL: a vote on the right to call
    action      TEXT    NOT NULL CHECK (action IN ('appoint', 'dismiss', 'deny_call')),
    reason      TEXT    NOT NULL,
    opened_at   TEXT    NOT NULL,
    deadline    TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'carried', 'failed')),
    closed_at   TEXT,
    until       TEXT                                                -- deny_call: the end of the denial (NULL: until restored)
);
INSERT INTO votes (id, proposer, subject, role, action, reason, opened_at, deadline, state, closed_at)
    SELECT id, proposer, subject, role, action, reason, opened_at, deadline, state, closed_at FROM votes_before_0029;
DROP TABLE votes_before_0029;
PRAGMA legacy_alter_table = OFF;
CREATE UNIQUE INDEX votes_one_open ON votes (subject, role) WHERE state = 'open';
CREATE UNIQUE INDEX votes_one_open_denial ON votes (subject) WHERE state = 'open' AND action = 'deny_call';
