-- Every money call names the operator and brand it is for (the RGS hosts many operators; each
-- sandbox wallet serves one). They are kept with the transaction and are part of what a replay
-- must repeat.
ALTER TABLE sandbox_wallet.transactions
    ADD COLUMN operator_id text NOT NULL DEFAULT '',
    ADD COLUMN brand_id    text NOT NULL DEFAULT '';
