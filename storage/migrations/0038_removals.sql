-- A member an officer removed from the club (`sudija clan NICK iskljuci`): out of the club until an officer
-- readmits him (`primi`), whatever the platforms say — a platform's join, and the start's roll call finding him in
-- the group or on the server, mark his account present there and nothing more. A row per member removed now; the
-- readmission deletes it (both are events: the acts).
CREATE TABLE removals (
    member  INTEGER PRIMARY KEY REFERENCES members(id),
    by      INTEGER REFERENCES members(id),     -- NULL: the admin at the server
    reason  TEXT    NOT NULL,
    at      TEXT    NOT NULL
);
