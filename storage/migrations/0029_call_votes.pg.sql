-- A single councilor's /uskrati is a proposal too (decisions.md, Trials: denying the right to call is a
-- councilors' vote or the owner's act): a vote may deny a member the right to call (action 'deny_call', no
-- function, until `until` or until restored).
ALTER TABLE votes ALTER COLUMN role DROP NOT NULL;
ALTER TABLE votes DROP CONSTRAINT votes_action_check;
ALTER TABLE votes ADD CONSTRAINT votes_action_check CHECK (action IN ('appoint', 'dismiss', 'deny_call'));
ALTER TABLE votes ADD COLUMN until TEXT;
CREATE UNIQUE INDEX votes_one_open_denial ON votes (club, subject) WHERE state = 'open' AND action = 'deny_call';
