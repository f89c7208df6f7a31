-- PostgreSQL's 0005_stand_and_promeni.sql (the rule for writing one: storage/migrations/README.md).
-- Standing up is recorded (game NULL), so a member who left a table is in the lobby even while that game's log
-- is still in progress; and Promeni… records when a trial stopped being about a game, so each game's 7-day
-- clock stands still only while the trial was about it.
CREATE TABLE seating_new (
    member  BIGINT PRIMARY KEY REFERENCES members(id),
    game    BIGINT ,                      -- NULL: he stood up (the live feed or the console says so)
    since   TEXT    NOT NULL
);
INSERT INTO seating_new (member, game, since) SELECT member, game, since FROM seating;
DROP TABLE seating;
ALTER TABLE seating_new RENAME TO seating;
ALTER TABLE trial_games ADD COLUMN until TEXT;   -- NULL: still about this game (or until the trial closed)

-- Who was told of a councilor call, so one who comes to the lobby later gets it once.
CREATE TABLE councilor_pings (
    ccall   BIGINT  NOT NULL REFERENCES councilor_calls(id),
    member  BIGINT  NOT NULL REFERENCES members(id),
    at      TEXT    NOT NULL,
    PRIMARY KEY (ccall, member)
);
