-- Table rounds in the operator's recall (issue 22). A round whose betting closed with only Bet
-- Behinds (each returned: nothing was dealt) is recorded too, as 'not_dealt', so its debits and
-- refunds are found by the round's id. An operator's recall of a table round reads the wallet
-- movements of its players in the round by round id: the index below. Expand only: a previous
-- release never writes 'not_dealt' and does not read the index.
--
-- On a large journal, build the index beforehand without blocking writes (the migration then
-- finds it): CREATE INDEX CONCURRENTLY IF NOT EXISTS wallet_transactions_by_round
--            ON wallet_transactions (round_id);
ALTER TABLE table_rounds DROP CONSTRAINT table_rounds_status_check;
ALTER TABLE table_rounds ADD CONSTRAINT table_rounds_status_check
    CHECK (status IN ('insurance', 'player_turn', 'settled', 'voided', 'not_dealt'));
CREATE INDEX IF NOT EXISTS wallet_transactions_by_round ON wallet_transactions (round_id);
