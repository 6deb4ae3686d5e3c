-- The RTP monitoring worker reads settled rounds in the order (finished_at, round key) from a
-- cursor, a batch at a time (rgs.rtp.worker Q_SOLO, Q_TABLE). Without an index each batch
-- scans and sorts every settled round of the journal; with these, a batch is a range scan
-- that stops after its LIMIT (tests/integration/test_rtp_worker.py checks the plan). Partial:
-- only the rounds the worker reads are indexed (settled; for solo rounds neither demo nor
-- test mode), so the planner also knows the read's filters leave every indexed row.
--
-- Migrations run in a transaction with lock_timeout (rgs.sqlmigrate), so CREATE INDEX
-- CONCURRENTLY cannot run here, and a plain CREATE INDEX blocks writes to the table while it
-- builds. On a journal of production size build them first without blocking writes (the
-- migration then finds them and does nothing):
--   CREATE INDEX CONCURRENTLY IF NOT EXISTS rounds_settled_order ON rgs.rounds (finished_at, (player_key || '/' || round_id)) WHERE status = 'settled' AND NOT demo AND cardinality(forced_cards) = 0;
--   CREATE INDEX CONCURRENTLY IF NOT EXISTS table_rounds_settled_order ON rgs.table_rounds (finished_at, (table_id || '/' || round_id)) WHERE status = 'settled';
CREATE INDEX IF NOT EXISTS rounds_settled_order
    ON rounds (finished_at, (player_key || '/' || round_id))
    WHERE status = 'settled' AND NOT demo AND cardinality(forced_cards) = 0;
CREATE INDEX IF NOT EXISTS table_rounds_settled_order
    ON table_rounds (finished_at, (table_id || '/' || round_id)) WHERE status = 'settled';
