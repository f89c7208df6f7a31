-- The game-server link, protocol v1.1 (docs/game-server.md): an offer withdrawn before the bot heard it made is
-- remembered (`withdrawn_at` set, the offer not open), so the late `offer_made` of it is void.
ALTER TABLE gs_offers ADD COLUMN withdrawn_at TEXT;   -- NULL: the offer is open
