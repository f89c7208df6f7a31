-- One identity for a nickname (rules.nicknames.identity_key: NFKC, case folding, the UTS #39 skeleton, computed
-- by the project and stored here, never by a collation). Every nickname the club knows — a member's, a game's
-- player's — is registered once with its key; a second spelling of one key is refused wherever it would enter.
-- The rows already in the database are registered by storage.nicknames.register_existing when each club is first
-- opened after this migration (the key is Python's to compute); a spelling that clashes with one registered
-- before it is listed in nick_clashes, and the operator is told.
CREATE TABLE nicknames (
    club        TEXT NOT NULL DEFAULT current_setting('sudija.club'),
    nick        TEXT NOT NULL COLLATE NOCASE,
    key         TEXT NOT NULL,
    first_seen  TEXT NOT NULL,
    PRIMARY KEY (club, nick),
    UNIQUE (club, key)
);
ALTER TABLE nicknames ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON nicknames USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));

CREATE TABLE nick_clashes (
    club        TEXT NOT NULL DEFAULT current_setting('sudija.club'),
    nick        TEXT NOT NULL,
    imitates    TEXT NOT NULL,
    found_at    TEXT NOT NULL,
    PRIMARY KEY (club, nick)
);
ALTER TABLE nick_clashes ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON nick_clashes USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));

CREATE TABLE nicknames_registered (
    club        TEXT NOT NULL DEFAULT current_setting('sudija.club'),
    done        BIGINT NOT NULL,
    PRIMARY KEY (club, done)
);
ALTER TABLE nicknames_registered ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON nicknames_registered USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));
