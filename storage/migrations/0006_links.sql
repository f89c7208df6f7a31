-- Proven identity (issue 13): a link between a chat account and a club nickname is proven, never claimed.
-- `accounts` holds proven links only, with how each was proven; a request waits in `link_requests` (with the
-- hash of its one-time code, when the game server delivered one); wrong codes lock an account in `link_locks`.
-- Links made before proofs existed (Discord, Telegram) were claims: they become pending requests.
ALTER TABLE accounts ADD COLUMN proof TEXT NOT NULL DEFAULT 'admin';  -- code, approval, configuration, admin
ALTER TABLE accounts ADD COLUMN linked_at TEXT;
ALTER TABLE accounts ADD COLUMN present INTEGER NOT NULL DEFAULT 1;   -- in the club on this platform
ALTER TABLE accounts ADD COLUMN online INTEGER NOT NULL DEFAULT 0;    -- online on this platform

CREATE TABLE link_requests (
    id            INTEGER PRIMARY KEY,
    platform      TEXT    NOT NULL,
    account       TEXT    NOT NULL,
    nick          TEXT    NOT NULL COLLATE NOCASE,
    display       TEXT    NOT NULL DEFAULT '',   -- the platform's display name, for the moderators' list
    asked_at      TEXT    NOT NULL,
    code_hash     TEXT,                          -- sha256 of salt:platform:account:nick:code; NULL: approval only
    code_salt     TEXT,
    code_expires  TEXT,
    UNIQUE (platform, account)                   -- one open request per account
);

CREATE TABLE link_locks (
    platform      TEXT    NOT NULL,
    account       TEXT    NOT NULL,
    failures      INTEGER NOT NULL DEFAULT 0,    -- wrong codes since the last lock or success
    locked_until  TEXT,
    PRIMARY KEY (platform, account)
);

INSERT INTO link_requests (platform, account, nick, display, asked_at)
    SELECT a.platform, a.account, m.nick, '', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM accounts a JOIN members m ON m.id = a.member WHERE a.platform IN ('discord', 'telegram');
DELETE FROM accounts WHERE platform IN ('discord', 'telegram');

-- One account per nickname per platform (the primary key already gives one nickname per account).
CREATE UNIQUE INDEX accounts_one_per_member_and_platform ON accounts (member, platform);
