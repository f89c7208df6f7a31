-- A suspension from all the club's tournaments is an effect of its own (decisions.md, the other clubs' packs: the
-- third club's "отстранение от всех преферансных турниров"), told to the game server: not the plavac, which is the
-- first club's "samo partije bez rejtinga". A running one per member, as the plavac; a penalty carries its days.
-- (No foreign key: the desk reads this table on every path, so a database from before 0020 takes it too, as it
-- takes 0032's; its rows are written for members of the club only.)
CREATE TABLE suspensions (
    club    TEXT   NOT NULL DEFAULT current_setting('sudija.club'),
    member  BIGINT NOT NULL,
    until   TEXT   NOT NULL,
    active  BIGINT NOT NULL DEFAULT 1,
    since   TEXT   NOT NULL,
    PRIMARY KEY (club, member)
);
CREATE INDEX suspensions_active ON suspensions (club, until) WHERE active = 1;
ALTER TABLE suspensions ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON suspensions USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));

ALTER TABLE penalties ADD COLUMN suspension_days BIGINT NOT NULL DEFAULT 0;
