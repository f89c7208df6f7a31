-- Several bot processes on one database (PostgreSQL): the process sending a command leases it first (a
-- conditional update), so exactly one sends it; the lease of a process that died runs out and another sends the
-- command again, with the same idempotency key, so the game server still carries it out once.
ALTER TABLE outbox ADD COLUMN leased_until TEXT;   -- NULL: nobody is sending it
