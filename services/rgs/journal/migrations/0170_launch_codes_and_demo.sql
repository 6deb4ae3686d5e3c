-- Launch codes and demo play (issue 28).
--
-- A launch code is the one-time credential of a launch URL: only its SHA-256 is stored, with
-- what the launch opens (brand, player or demo, game or table, language, lobby and cashier
-- URLs, device) as JSON. Any replica redeems it with one UPDATE ... WHERE redeemed_at IS NULL
-- AND expires_at > now(): of two concurrent redeems exactly one gets the row.
CREATE TABLE launch_codes (
    code_hash    text PRIMARY KEY,
    operator_id  text NOT NULL,
    brand_id     text NOT NULL,
    launch       jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    redeemed_at  timestamptz
);
CREATE INDEX launch_codes_by_expiry ON launch_codes (expires_at);

-- Demo play: a demo player's key is `operator/demo~<24 hex>` (no operator's player id can
-- contain `~`). Its virtual balance and the moves that changed it live here, never in a
-- wallet; `demo_moves` makes each move idempotent by transaction id, as a wallet is.
CREATE TABLE demo_balances (
    player_key  text NOT NULL,
    currency    text NOT NULL,
    balance     bigint NOT NULL CHECK (balance >= 0),
    PRIMARY KEY (player_key, currency)
);
CREATE TABLE demo_moves (
    player_key      text NOT NULL,
    transaction_id  text NOT NULL,
    kind            text NOT NULL,
    amount          bigint NOT NULL,
    balance_after   bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_key, transaction_id)
);

-- Every demo round and movement is marked in the journal, derived from the player key by a
-- trigger, so writers need not set it (a previous release's inserts get it too) and RTP
-- monitoring, finance and reports exclude `demo` rows by it. A plain column with a constant
-- default is added without rewriting the table (a stored generated column would rewrite
-- rounds and wallet_transactions under an exclusive lock: tests/unit/test_migration_rules.py);
-- no row written before this migration is a demo one.
ALTER TABLE rounds ADD COLUMN demo boolean NOT NULL DEFAULT false;
ALTER TABLE wallet_transactions ADD COLUMN demo boolean NOT NULL DEFAULT false;
CREATE FUNCTION mark_demo() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.demo := split_part(NEW.player_key, '/', 2) LIKE 'demo~%';
    RETURN NEW;
END $$;
CREATE TRIGGER rounds_mark_demo BEFORE INSERT ON rounds
    FOR EACH ROW EXECUTE FUNCTION mark_demo();
CREATE TRIGGER wallet_transactions_mark_demo BEFORE INSERT ON wallet_transactions
    FOR EACH ROW EXECUTE FUNCTION mark_demo();
