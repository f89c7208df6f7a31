-- Several bot processes serving one database at once (PostgreSQL): a lease names the process holding it (its
-- server connection: pid and start), so a process releases only the leases of processes that are gone, never
-- those of one still delivering.
ALTER TABLE chat_outbox ADD COLUMN leased_by TEXT;   -- NULL: nobody, or a bot from before this migration
ALTER TABLE outbox ADD COLUMN leased_by TEXT;
