-- What the bot last synced to a platform, by a digest of it: Discord's application commands of a server (creating
-- commands is capped per day, so a start whose declared commands are the ones synced syncs nothing).
CREATE TABLE platform_syncs (
    club        TEXT NOT NULL DEFAULT current_setting('sudija.club'),
    platform    TEXT NOT NULL,
    what        TEXT NOT NULL,
    digest      TEXT NOT NULL,
    synced_at   TEXT NOT NULL,
    PRIMARY KEY (club, platform, what)
);
ALTER TABLE platform_syncs ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON platform_syncs USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));
