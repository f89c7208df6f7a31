-- Link requests and codes, rate-limited per account and per nickname (bot.desk.links, `[links]`): every request
-- that reaches the approvers and every code delivered to a game client is one row, written with the request.
CREATE TABLE link_attempts (
    id        INTEGER PRIMARY KEY,
    kind      TEXT    NOT NULL CHECK (kind IN ('link_request', 'link_code')),
    platform  TEXT    NOT NULL,
    account   TEXT    NOT NULL,
    nick_key  TEXT    NOT NULL,          -- rules.nicknames.identity_key of the nickname asked for
    at        TEXT    NOT NULL
);
CREATE INDEX link_attempts_by_account ON link_attempts (kind, platform, account, at);
CREATE INDEX link_attempts_by_nick ON link_attempts (kind, nick_key, at);
