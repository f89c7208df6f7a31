-- What the bot last synced to a platform, by a digest of it: Discord's application commands of a server (creating
-- commands is capped per day, so a start whose declared commands are the ones synced syncs nothing).
CREATE TABLE platform_syncs (
    platform    TEXT NOT NULL,
    what        TEXT NOT NULL,                 -- e.g. 'commands:<application id>:<guild id>'
    digest      TEXT NOT NULL,                 -- SHA-256 of what was synced
    synced_at   TEXT NOT NULL,
    PRIMARY KEY (platform, what)
);
