-- The operator's open rounds and the sweep of interrupted ones (per operator, the longest idle
-- first) read only unfinished rounds: a partial index keeps that read small however many
-- finished rounds the journal holds. On a large journal build it by hand first, without
-- locking writes: CREATE INDEX CONCURRENTLY IF NOT EXISTS rounds_open ON rounds
-- (operator_id, updated_at) WHERE status IN ('insurance', 'player_turn');
CREATE INDEX IF NOT EXISTS rounds_open ON rounds (operator_id, updated_at)
    WHERE status IN ('insurance', 'player_turn');
