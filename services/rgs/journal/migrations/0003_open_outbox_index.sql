-- The partial index of open outbox rows follows the outbox rule (rgs.service.model.is_open):
-- a credit or a rollback is final once the wallet applied it; only a debit stays open while
-- applied, until its step is booked. The first index also kept every applied credit and
-- rollback, so it grew with every round played. The condition is the journal's OPEN_MOVEMENT
-- (rgs.journal.postgres) word for word, so the planner can use the index for the queries that
-- carry it; tests/integration/test_journal.py keeps the two identical.
DROP INDEX wallet_transactions_open;
CREATE INDEX wallet_transactions_open ON wallet_transactions (player_key)
    WHERE ((kind = 'debit' AND status IN ('pending', 'applied', 'unknown')) OR (kind IN ('credit', 'rollback') AND status IN ('pending', 'unknown')));
