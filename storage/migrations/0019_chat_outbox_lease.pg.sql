-- Several bot processes on one database (PostgreSQL): the process delivering a chat effect leases it first (a
-- conditional update), so exactly one delivers it, and an effect behind a leased one of its queue waits for it
-- (a queue's effects arrive in order); the lease of a process that died runs out, or is released by the next
-- bot to start.
ALTER TABLE chat_outbox ADD COLUMN leased_until TEXT;   -- NULL: nobody is delivering it
