-- The version of a game's paper: raised in the transaction of every write its paper is computed from (the game's
-- log stored or grown, a change written or cancelled), so a paper kept in memory (bot/desk/papers.py) is known
-- current by reading this one number, in every process serving the club.
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
