-- A suspension from all the club's tournaments is an effect of its own (decisions.md, the other clubs' packs: the
-- third club's "отстранение от всех преферансных турниров"), told to the game server: not the plavac, which is the
-- first club's "samo partije bez rejtinga". A running one per member, as the plavac; a penalty carries its days.
CREATE TABLE suspensions (                  -- from all the club's tournaments (the game server is told)
    member  INTEGER PRIMARY KEY REFERENCES members(id),
    until   TEXT    NOT NULL,
    active  INTEGER NOT NULL DEFAULT 1,   -- 0 once it ran out or was lifted away (the game server was told)
    since   TEXT    NOT NULL
);
CREATE INDEX suspensions_active ON suspensions (until) WHERE active = 1;

ALTER TABLE penalties ADD COLUMN suspension_days INTEGER NOT NULL DEFAULT 0;
