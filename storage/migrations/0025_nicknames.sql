-- One identity for a nickname (rules.nicknames.identity_key: NFKC, case folding, the UTS #39 skeleton, computed
-- by the project and stored here, never by a collation). Every nickname the club knows — a member's, a game's
-- player's — is registered once with its key; a second spelling of one key is refused wherever it would enter.
-- The rows already in the database are registered by storage.nicknames.register_existing when the club is first
-- opened after this migration (the key is Python's to compute); a spelling that clashes with one registered
-- before it is listed in nick_clashes, and the operator is told.
CREATE TABLE nicknames (
    nick        TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
    key         TEXT NOT NULL UNIQUE,
    first_seen  TEXT NOT NULL
);

CREATE TABLE nick_clashes (
    nick        TEXT NOT NULL PRIMARY KEY,     -- the spelling that could not be registered
    imitates    TEXT NOT NULL,                 -- the registered spelling with the same key
    found_at    TEXT NOT NULL
);

CREATE TABLE nicknames_registered (
    done        INTEGER NOT NULL               -- one row (1) once the existing rows were registered
);
