-- The hands the live feed adds to a game in progress, one row each, appended: a finished hand costs its own row,
-- not the game's whole log written and compressed again. A game's hands are its log's (games.log) followed by
-- these in the order of `n`; a log written whole (an import, the game's end) holds every hand, and the game's
-- rows here are deleted in that write's transaction. A game stored before this migration has no rows here: it
-- reads as it did.
CREATE TABLE game_hands (
    club  TEXT    NOT NULL DEFAULT current_setting('sudija.club'),
    game  BIGINT  NOT NULL,
    n     BIGINT  NOT NULL,                  -- the hand's place in the game: 1, 2, 3 …
    hand  BYTEA   NOT NULL,                  -- its canonical JSON text, UTF-8 (storage.gameserver.hand_text)
    PRIMARY KEY (club, game, n),
    FOREIGN KEY (club, game) REFERENCES games (club, number)
);
ALTER TABLE game_hands ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON game_hands USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));
