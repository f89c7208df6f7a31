-- A trial's space on a platform when it is not simply open: the platform refused to open it (a permission the bot
-- lacks; the trial goes on through the bot's private relay there until it can be opened), or refused to lock it
-- at the trial's end (tried again; the officials are told). No row: the space opened as it should.
CREATE TABLE trial_spaces (
    trial       INTEGER NOT NULL,                -- a trial's id (trials are never deleted)
    platform    TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('open', 'relayed', 'unlocked', 'locked')),
    problem     TEXT,                          -- what the platform refused, in the operator's words
    since       TEXT    NOT NULL,
    PRIMARY KEY (trial, platform)
);
CREATE INDEX trial_spaces_by_state ON trial_spaces (platform, state);
