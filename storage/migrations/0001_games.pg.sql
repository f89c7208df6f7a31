-- PostgreSQL's 0001_games.sql (the rule for writing one: storage/migrations/README.md).
-- Game logs as imported: one row per game, the canonical log compressed, and who sat where.
-- SQLite's COLLATE NOCASE: a case-insensitive ICU collation of the same name (compared, indexed and unique
-- without regard to case; LIKE is not allowed on it, and no query uses LIKE).
CREATE COLLATION IF NOT EXISTS nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

CREATE TABLE games (
    number        BIGINT PRIMARY KEY,
    rated         BIGINT  NOT NULL,
    ai            BIGINT  NOT NULL,
    bule          BIGINT  NOT NULL,
    refe_limit    BIGINT  NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('in_progress', 'finished', 'interrupted')),
    started_at    TEXT    NOT NULL,
    ended_at      TEXT,
    hand_count    BIGINT  NOT NULL,
    digest        TEXT    NOT NULL,   -- sha256 of the canonical log: the same log again is a no-op
    log           BYTEA    NOT NULL,   -- zlib-compressed canonical JSON (rules.gamelog.game_to_doc)
    cross_check   TEXT,               -- JSON list of differences between recorded and computed score, or NULL
    imported_at   TEXT    NOT NULL
);

CREATE TABLE game_players (
    game      BIGINT  NOT NULL REFERENCES games(number) ON DELETE CASCADE,
    seat      BIGINT  NOT NULL CHECK (seat BETWEEN 0 AND 2),
    nick      TEXT    NOT NULL COLLATE NOCASE,
    ended_at  TEXT,                   -- copied from games so "a player's games by end time" is one index
    PRIMARY KEY (game, seat)
);
CREATE INDEX game_players_by_nick_end ON game_players (nick, ended_at);
CREATE INDEX games_in_progress ON games (status) WHERE status = 'in_progress';
