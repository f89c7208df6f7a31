-- The hands the live feed adds to a game in progress, one row each, appended: a finished hand costs its own row,
-- not the game's whole log written and compressed again. A game's hands are its log's (games.log) followed by
-- these in the order of `n`; a log written whole (an import, the game's end) holds every hand, and the game's
-- rows here are deleted in that write's transaction. A game stored before this migration has no rows here: it
-- reads as it did.
CREATE TABLE game_hands (
    game  INTEGER NOT NULL REFERENCES games(number),
    n     INTEGER NOT NULL,                  -- the hand's place in the game: 1, 2, 3 …
    hand  BLOB    NOT NULL,                  -- its canonical JSON text, UTF-8 (storage.gameserver.hand_text)
    PRIMARY KEY (game, n)
);
