-- Every outbox row counts the wallet calls made for it and keeps the last call's error, so the
-- reconciler can back off exponentially and operations can see why a row is still open.
ALTER TABLE wallet_transactions
    ADD COLUMN attempts   integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    ADD COLUMN last_error text    NOT NULL DEFAULT '';
