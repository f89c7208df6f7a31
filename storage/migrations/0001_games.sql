-- Game logs as imported: one row per game, the canonical log compressed, and who sat where.
CREATE TABLE games (
    number        INTEGER PRIMARY KEY,
    rated         INTEGER NOT NULL,
    ai            INTEGER NOT NULL,
    bule          INTEGER NOT NULL,
    refe_limit    INTEGER NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('in_progress', 'finished', 'interrupted')),
    started_at    TEXT    NOT NULL,
    ended_at      TEXT,
    hand_count    INTEGER NOT NULL,
    digest        TEXT    NOT NULL,   -- sha256 of the canonical log: the same log again is a no-op
    log           BLOB    NOT NULL,   -- zlib-compressed canonical JSON (rules.gamelog.game_to_doc)
    cross_check   TEXT,               -- JSON list of differences between recorded and computed score, or NULL
    imported_at   TEXT    NOT NULL
);

CREATE TABLE game_players (
    game      INTEGER NOT NULL REFERENCES games(number) ON DELETE CASCADE,
    seat      INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 2),
    nick      TEXT    NOT NULL COLLATE NOCASE,
    ended_at  TEXT,                   -- copied from games so "a player's games by end time" is one index
    PRIMARY KEY (game, seat)
);
CREATE INDEX game_players_by_nick_end ON game_players (nick, ended_at);
CREATE INDEX games_in_progress ON games (status) WHERE status = 'in_progress';
