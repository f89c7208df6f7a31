-- The game-server link (docs/game-server.md): every event taken from the game server (its id makes a replay
-- harmless, its per-game sequence number shows a gap), the tables' last moves (for korekcija), members' pending
-- game offers, link codes issued, korekcija requests, and the outbox of commands to the game server.
CREATE TABLE gs_events (
    id           TEXT    PRIMARY KEY,        -- the game server's event id
    type         TEXT    NOT NULL,
    game         INTEGER,                    -- NULL: an event about no game (an offer, a link code)
    seq          INTEGER,                    -- the game's sequence number (1, 2, 3 …), with `game`
    received_at  TEXT    NOT NULL,
    body         TEXT    NOT NULL            -- the request body as received
);
CREATE UNIQUE INDEX gs_events_by_game_seq ON gs_events (game, seq) WHERE game IS NOT NULL;

CREATE TABLE gs_moves (                      -- moves of the hands in progress, as the live feed reports them
    id      INTEGER PRIMARY KEY,
    game    INTEGER NOT NULL,
    hand    INTEGER NOT NULL,
    move    INTEGER NOT NULL,                -- the game server's number of the move within the hand
    player  TEXT    NOT NULL COLLATE NOCASE,
    what    TEXT    NOT NULL,
    at      TEXT    NOT NULL,
    undone  INTEGER NOT NULL DEFAULT 0       -- 1: taken back by a korekcija
);
CREATE INDEX gs_moves_by_game ON gs_moves (game, id);

CREATE TABLE gs_hands_done (                 -- the hands the live feed reported finished (a korekcija is too late)
    game  INTEGER NOT NULL,
    hand  INTEGER NOT NULL,
    PRIMARY KEY (game, hand)
);

CREATE TABLE gs_offers (                     -- game offers a member has open on the game server
    nick      TEXT NOT NULL COLLATE NOCASE,
    offer     TEXT NOT NULL,
    made_at   TEXT NOT NULL,
    PRIMARY KEY (nick, offer)
);

CREATE TABLE gs_link_codes (                 -- one-time link codes the game server showed to a nickname
    nick       TEXT NOT NULL COLLATE NOCASE,
    code       TEXT NOT NULL,
    issued_at  TEXT NOT NULL,
    used_at    TEXT,
    PRIMARY KEY (nick, code)
);

CREATE TABLE korekcije (                     -- requests to take back the last move of a hand in progress
    id          INTEGER PRIMARY KEY,
    game        INTEGER NOT NULL,
    hand        INTEGER NOT NULL,
    move        INTEGER NOT NULL,
    move_row    INTEGER NOT NULL REFERENCES gs_moves(id),
    requester   INTEGER NOT NULL REFERENCES members(id),
    created_at  TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'agreed', 'refused', 'lapsed', 'done')),
    closed_at   TEXT
);
CREATE UNIQUE INDEX korekcije_once_per_move ON korekcije (move_row);

CREATE TABLE korekcija_answers (
    request  INTEGER NOT NULL REFERENCES korekcije(id),
    player   TEXT    NOT NULL COLLATE NOCASE,
    yes      INTEGER NOT NULL,
    at       TEXT    NOT NULL,
    PRIMARY KEY (request, player)
);

CREATE TABLE outbox (                        -- commands to the game server: a row first, then sent by a worker
    id          INTEGER PRIMARY KEY,
    queue       TEXT    NOT NULL,            -- 'game:N' or 'nick:X': commands of one queue go out in order
    kind        TEXT    NOT NULL,
    payload     TEXT    NOT NULL,            -- JSON: the command's fields
    key         TEXT    NOT NULL UNIQUE,     -- the idempotency key sent with it
    created_at  TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     TEXT    NOT NULL,            -- not before this moment (the retry's backoff)
    last_error  TEXT,
    done_at     TEXT
);
CREATE INDEX outbox_pending ON outbox (queue, id) WHERE state = 'pending';
