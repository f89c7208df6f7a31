-- A trial's space on a platform when it is not simply open: the platform refused to open it (a permission the bot
-- lacks; the trial goes on through the bot's private relay there until it can be opened), or refused to lock it
-- at the trial's end (tried again; the officials are told). No row: the space opened as it should.
CREATE TABLE trial_spaces (
    club        TEXT   NOT NULL DEFAULT current_setting('sudija.club'),
    trial       BIGINT NOT NULL,
    platform    TEXT   NOT NULL,
    state       TEXT   NOT NULL CHECK (state IN ('open', 'relayed', 'unlocked', 'locked')),
    problem     TEXT,
    since       TEXT   NOT NULL,
    PRIMARY KEY (club, trial, platform)
);
CREATE INDEX trial_spaces_by_state ON trial_spaces (club, platform, state);
ALTER TABLE trial_spaces ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY one_club ON trial_spaces USING (club = current_setting('sudija.club'))
    WITH CHECK (club = current_setting('sudija.club'));
