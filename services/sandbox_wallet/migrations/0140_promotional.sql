-- A credit paying a free bet's win is marked promotional by the RGS (docs/wallet.md); the
-- sandbox records the mark with the transaction.
ALTER TABLE sandbox_wallet.transactions
    ADD COLUMN promotional boolean NOT NULL DEFAULT false;
