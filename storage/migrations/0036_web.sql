-- The club's web pages (bot/web): the sign-in links the bot sends privately (`/web`) and the sessions they open.
-- A link or a session is kept by the SHA-256 of its token only: the token itself lives in the member's private
-- message and his browser's cookie, so a copy of the database opens nothing.
CREATE TABLE web_links (
    id          INTEGER PRIMARY KEY,
    token_hash  TEXT    NOT NULL UNIQUE,
    member      INTEGER NOT NULL REFERENCES members(id),
    platform    TEXT    NOT NULL,                         -- the account it was sent to: the session is bound to it
    account     TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    expires_at  TEXT    NOT NULL,                         -- ten minutes after it was sent
    used_at     TEXT                                      -- single use: set by the sign-in it opened
);
CREATE INDEX web_links_by_member ON web_links (member, created_at);

CREATE TABLE web_sessions (
    id          INTEGER PRIMARY KEY,
    token_hash  TEXT    NOT NULL UNIQUE,
    member      INTEGER NOT NULL REFERENCES members(id),
    platform    TEXT    NOT NULL,                         -- the account that proved who he is
    account     TEXT    NOT NULL,
    via         TEXT    NOT NULL CHECK (via IN ('link', 'telegram_login', 'discord_oauth')),
    offices     TEXT    NOT NULL DEFAULT '',              -- the offices he held at sign-in (comma separated)
    created_at  TEXT    NOT NULL,
    expires_at  TEXT    NOT NULL,
    ended_at    TEXT,
    end_reason  TEXT    CHECK (end_reason IN ('signed_out', 'link_ended', 'office_ended', 'left_club'))
);
CREATE INDEX web_sessions_by_member ON web_sessions (member);
