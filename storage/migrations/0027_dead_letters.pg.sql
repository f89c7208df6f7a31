-- One outbox engine (storage/outbox_engine.py): the game server's commands (`outbox`) and the chat effects
-- (`chat_outbox`) share one shape of rows, leases and retries, and both may end `dead` (kept failing in a way
-- that may heal, past the configured bound) or `skipped` (given up by an operator, `sudija outbox --skip`, or made
-- moot by a newer row). `failing_since` dates the first failure of the current tries (the age bound counts from
-- it); `resolved_by`, `resolved_at` and `reason` say who last sent a row again or skipped it, when and why.
-- `outbox.next_at` may now be NULL, as the chat's. The tables keep their club, keys and row-level security.
ALTER TABLE outbox DROP CONSTRAINT outbox_state_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_state_check
    CHECK (state IN ('pending', 'sent', 'failed', 'dead', 'skipped'));
ALTER TABLE outbox ALTER COLUMN next_at DROP NOT NULL;
ALTER TABLE outbox ADD COLUMN failing_since TEXT;
ALTER TABLE outbox ADD COLUMN resolved_by TEXT;
ALTER TABLE outbox ADD COLUMN resolved_at TEXT;
ALTER TABLE outbox ADD COLUMN reason TEXT;

ALTER TABLE chat_outbox DROP CONSTRAINT chat_outbox_state_check;
ALTER TABLE chat_outbox ADD CONSTRAINT chat_outbox_state_check
    CHECK (state IN ('pending', 'sent', 'failed', 'dead', 'skipped'));
ALTER TABLE chat_outbox ADD COLUMN failing_since TEXT;
ALTER TABLE chat_outbox ADD COLUMN resolved_by TEXT;
ALTER TABLE chat_outbox ADD COLUMN resolved_at TEXT;
ALTER TABLE chat_outbox ADD COLUMN reason TEXT;
