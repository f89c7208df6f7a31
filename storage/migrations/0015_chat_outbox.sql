-- The chat outbox: every chat effect of a decision (post a call's notice, edit the notices, open or close a
-- trial's space, tell a member or a table, and what the trial asks of the game server) is a row written in the
-- decision's own transaction, delivered later by a worker, and marked done per platform, so a crash between the
-- commit and the effect only delays it. `next_at` NULL: due at once.
CREATE TABLE chat_outbox (
    id          INTEGER PRIMARY KEY,
    queue       TEXT    NOT NULL,                -- 'call:N': a call's effects and its trial's, in order
    kind        TEXT    NOT NULL,
    payload     TEXT    NOT NULL,                -- JSON
    created_at  TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     TEXT,
    last_error  TEXT,
    done_at     TEXT
);
CREATE INDEX chat_outbox_pending ON chat_outbox (queue, id) WHERE state = 'pending';

CREATE TABLE chat_deliveries (                   -- each platform's part of an effect: begun, then done or failed
    effect  INTEGER NOT NULL REFERENCES chat_outbox (id),
    platform TEXT   NOT NULL,
    state   TEXT    NOT NULL CHECK (state IN ('started', 'done', 'failed')),
    at      TEXT    NOT NULL,
    PRIMARY KEY (effect, platform)
);
