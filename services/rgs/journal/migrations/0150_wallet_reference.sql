-- The wallet's own reference for each movement (issue 24): the ``wallet_transaction_id`` both
-- wallet contracts return, kept with the outcome so reconciliation can match it against the
-- wallet's export. Expand only: nullable, no default; a previous release neither reads nor
-- writes it, and rows written before it (or by such a release) have none (NULL).
ALTER TABLE wallet_transactions ADD COLUMN wallet_reference text;
