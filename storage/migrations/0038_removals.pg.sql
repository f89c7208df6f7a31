-- A member an officer removed from the club (`sudija clan NICK iskljuci`): out of the club until an officer
-- readmits him (`primi`), whatever the platforms say — a platform's join, and the start's roll call finding him in
-- the group or on the server, mark his account present there and nothing more. A row per member removed now; the
-- readmission deletes it (both are events: the acts).
-- (No foreign key: the desk reads this table on every path, so a database from before 0020 takes it too, as it
-- takes 0035's; its rows are written for members of the club only.)
CREATE TABLE removals (
    club    TEXT   NOT NULL DEFAULT current_setting('sudija.club'),
    member  BIGINT NOT NULL,
    by      BIGINT,
    reason  TEXT   NOT NULL,
    at      TEXT   NOT NULL,
    PRIMARY KEY (club, member)
);
ALTER TABLE removals ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON removals USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));
