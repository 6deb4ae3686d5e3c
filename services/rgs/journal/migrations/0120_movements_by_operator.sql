-- The back office lists one operator's money movements between two times (reconciliation, GGR):
-- the outbox is keyed by player key, so that read needs an index that leads with the operator
-- (the player key's part before '/') and the time the row was written. On a large journal build
-- it by hand first, without locking writes:
--   CREATE INDEX CONCURRENTLY IF NOT EXISTS wallet_transactions_by_operator ON wallet_transactions
--       ((split_part(player_key, '/', 1)), created_at, player_key, transaction_id);
CREATE INDEX IF NOT EXISTS wallet_transactions_by_operator ON wallet_transactions
    ((split_part(player_key, '/', 1)), created_at, player_key, transaction_id);
