-- Players' corrections without a referee that wait for someone's answer: an Arbitar offered by the fallen
-- defender (the other defender accepts or refuses) and an Ispravka proposed by the player who fell (the other
-- two consent). The paper changes they write live in paper_changes; these rows keep the request, who must
-- answer, each answer, and how the request ended (the Arbitar's verdict included).
CREATE TABLE correction_requests (
    id          INTEGER PRIMARY KEY,
    game        INTEGER NOT NULL REFERENCES games(number),
    hand        INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('arbitar', 'ispravka')),
    by_member   INTEGER NOT NULL REFERENCES members(id),
    seat        INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 2),   -- the proposer: the fallen player
    reason      TEXT    NOT NULL DEFAULT '',
    replaces    INTEGER REFERENCES paper_changes(id),            -- ispravka: the standing one it would replace
    created_at  TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'applied', 'decided', 'refused', 'replaced', 'withdrawn', 'lapsed')),
    closed_at   TEXT,
    closed_by   INTEGER REFERENCES members(id),
    change      INTEGER REFERENCES paper_changes(id),            -- the paper change it wrote, if any
    verdict     TEXT,                                            -- JSON: the Arbitar's verdict
    note        TEXT                                             -- why it lapsed, for people
);
CREATE UNIQUE INDEX correction_requests_one_pending ON correction_requests (game, hand, kind)
    WHERE state = 'pending';
CREATE INDEX correction_requests_by_game ON correction_requests (game, hand);

CREATE TABLE correction_answers (
    request  INTEGER NOT NULL REFERENCES correction_requests(id),
    seat     INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 2),
    member   INTEGER REFERENCES members(id),    -- who answered (NULL while unanswered, or for the AI's seat)
    answer   TEXT CHECK (answer IN ('yes', 'no')),  -- NULL: not answered yet
    at       TEXT,
    PRIMARY KEY (request, seat)
);
