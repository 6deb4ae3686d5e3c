-- Jurisdiction profiles (issue 23). A session keeps its reality-check interval (NULL: none) and
-- when the player last acknowledged one; a session's position (staked, paid) is read from its
-- wallet movements by session. Expand only: a previous release neither writes nor reads these.
--
-- On a large journal, build the index beforehand without blocking writes (the migration then
-- finds it): CREATE INDEX CONCURRENTLY IF NOT EXISTS wallet_transactions_session
--            ON wallet_transactions (player_key, session_id);
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS reality_check_s integer
    CHECK (reality_check_s IS NULL OR reality_check_s > 0);
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS reality_checked_at timestamptz;
CREATE INDEX IF NOT EXISTS wallet_transactions_session
    ON wallet_transactions (player_key, session_id);
