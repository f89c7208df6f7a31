-- The club's signing key (Ed25519, bot/records/signing.py): generated at the first start, one per club. Its
-- private part stays here (the database is the club's truth and is kept like it); its public part is what
-- `sudija zapisnik --public-key` publishes and every record shows. Both are stored as base64 text.
CREATE TABLE club_key (
    id           INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    private_key  TEXT    NOT NULL,
    public_key   TEXT    NOT NULL,
    created_at   TEXT    NOT NULL
);
