-- PostgreSQL's 0007_sweep_and_clock.sql (the rule for writing one: storage/migrations/README.md).
-- The safety sweep reads the earliest open deadline with one indexed query (calls and plavac have their
-- indexes already), and the console club keeps its own clock so a scripted club resumes at its own time.
CREATE INDEX councilor_calls_pending_deadline ON councilor_calls (deadline) WHERE state = 'pending';

CREATE TABLE club_clock (
    id   BIGINT PRIMARY KEY CHECK (id = 1),
    now  TEXT    NOT NULL                -- the club's current time (ISO 8601 UTC), moved only by !clock
);
