-- One outbox engine (storage/outbox_engine.py): the game server's commands (`outbox`) and the chat effects
-- (`chat_outbox`) share one shape of rows, leases and retries, and both may end `dead` (kept failing in a way
-- that may heal, past the configured bound) or `skipped` (given up by an operator, `sudija outbox --skip`, or made
-- moot by a newer row). `failing_since` dates the first failure of the current tries (the age bound counts from
-- it); `resolved_by`, `resolved_at` and `reason` say who last sent a row again or skipped it, when and why. SQLite
-- cannot change a CHECK in place: each table is rebuilt with its ids, and `chat_deliveries` with it (built
-- pointing at the new effects, so no row is ever without its effect); `outbox.next_at` may now be NULL, as the
-- chat's.

CREATE TABLE outbox_new (
    id            INTEGER PRIMARY KEY,
    queue         TEXT    NOT NULL,            -- 'game:N' or 'nick:X': commands of one queue go out in order
    kind          TEXT    NOT NULL,
    payload       TEXT    NOT NULL,            -- JSON: the command's fields
    key           TEXT    NOT NULL UNIQUE,     -- the idempotency key sent with it
    created_at    TEXT    NOT NULL,
    state         TEXT    NOT NULL DEFAULT 'pending'
                          CHECK (state IN ('pending', 'sent', 'failed', 'dead', 'skipped')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    next_at       TEXT,                        -- not before this moment (a retry's backoff); NULL: at once
    last_error    TEXT,
    done_at       TEXT,
    leased_until  TEXT,                        -- NULL: nobody is sending it
    leased_by     TEXT,
    failing_since TEXT,                        -- the first failure of its current tries (NULL: none)
    resolved_by   TEXT,                        -- who last sent it again or skipped it
    resolved_at   TEXT,
    reason        TEXT
);
INSERT INTO outbox_new (id, queue, kind, payload, key, created_at, state, attempts, next_at, last_error, done_at,
                        leased_until, leased_by)
    SELECT id, queue, kind, payload, key, created_at, state, attempts, next_at, last_error, done_at,
           leased_until, leased_by FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
CREATE INDEX outbox_pending ON outbox (queue, id) WHERE state = 'pending';

CREATE TABLE chat_outbox_new (
    id            INTEGER PRIMARY KEY,
    queue         TEXT    NOT NULL,            -- 'call:N': a call's effects and its trial's, in order
    kind          TEXT    NOT NULL,
    payload       TEXT    NOT NULL,            -- JSON
    created_at    TEXT    NOT NULL,
    state         TEXT    NOT NULL DEFAULT 'pending'
                          CHECK (state IN ('pending', 'sent', 'failed', 'dead', 'skipped')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    next_at       TEXT,
    last_error    TEXT,
    done_at       TEXT,
    leased_until  TEXT,                        -- NULL: nobody is delivering it
    leased_by     TEXT,
    failing_since TEXT,
    resolved_by   TEXT,
    resolved_at   TEXT,
    reason        TEXT
);
INSERT INTO chat_outbox_new (id, queue, kind, payload, created_at, state, attempts, next_at, last_error, done_at,
                             leased_until, leased_by)
    SELECT id, queue, kind, payload, created_at, state, attempts, next_at, last_error, done_at,
           leased_until, leased_by FROM chat_outbox;
CREATE TABLE chat_deliveries_new (               -- each platform's part of an effect: begun, then done or failed
    effect  INTEGER NOT NULL REFERENCES chat_outbox_new (id),
    platform TEXT   NOT NULL,
    state   TEXT    NOT NULL CHECK (state IN ('started', 'done', 'failed')),
    at      TEXT    NOT NULL,
    PRIMARY KEY (effect, platform)
);
INSERT INTO chat_deliveries_new (effect, platform, state, at) SELECT effect, platform, state, at FROM chat_deliveries;
DROP TABLE chat_deliveries;
DROP TABLE chat_outbox;
ALTER TABLE chat_outbox_new RENAME TO chat_outbox;           -- chat_deliveries_new now points at chat_outbox
ALTER TABLE chat_deliveries_new RENAME TO chat_deliveries;
CREATE INDEX chat_outbox_pending ON chat_outbox (queue, id) WHERE state = 'pending';
