-- The club's signing key (Ed25519, bot/records/signing.py): generated at the first start, one per club. Its
-- private part stays here (the database is the club's truth and is kept like it); its public part is what
-- `sudija zapisnik --public-key` publishes and every record shows. Both are stored as base64 text.
CREATE TABLE club_key (
    club         TEXT   NOT NULL DEFAULT current_setting('sudija.club'),
    id           BIGINT NOT NULL CHECK (id = 1),
    private_key  TEXT   NOT NULL,
    public_key   TEXT   NOT NULL,
    created_at   TEXT   NOT NULL,
    PRIMARY KEY (club, id)
);
ALTER TABLE club_key ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON club_key USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));
