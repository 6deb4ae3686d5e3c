-- Data lifecycle (issue 26): `rgs purge` deletes idempotency records by their last write and
-- sessions by their expiry, a batch at a time; these indexes keep each batch a range scan
-- instead of a scan of the table. No table is rewritten.
--
-- Migrations run with lock_timeout (rgs.sqlmigrate): CREATE INDEX waits for no writer longer
-- than that and fails instead, so on a busy journal build them first without blocking writes
-- (the migration then finds them):
--   CREATE INDEX CONCURRENTLY IF NOT EXISTS idempotency_records_updated ON rgs.idempotency_records (updated_at);
--   CREATE INDEX CONCURRENTLY IF NOT EXISTS sessions_expires ON rgs.sessions (expires_at);
CREATE INDEX IF NOT EXISTS idempotency_records_updated ON idempotency_records (updated_at);
CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires_at);
