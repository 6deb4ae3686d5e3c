-- A money call in one statement (one round trip, one implicit transaction) instead of a
-- transaction of five to seven: the rules of ledger.py, in the same order. It locks the player's
-- balance row first, so calls for one player are serialised; each statement of a PL/pgSQL
-- function takes a fresh snapshot, so the checks after the lock see every call that committed
-- while this one waited (a duplicate's row, a rollback that arrived first).
--
-- Returns one row: a refusal (reason, message, and for INSUFFICIENT_FUNDS the balance and
-- currency), or the transaction row (replayed = true when the id was already recorded: the
-- caller compares its parameters, as a replay must repeat them). Two calls of distinct players
-- with one transaction id race on the primary key: the loser's unique violation is raised and
-- the caller retries the call, which then finds the winner's row.
CREATE FUNCTION sandbox_wallet.apply_call(
    p_transaction_id text, p_kind text, p_player_id text, p_round_id text, p_session_id text,
    p_currency text, p_amount bigint, p_round_closed boolean, p_debit_transaction_id text,
    p_operator_id text, p_brand_id text,
    OUT refusal text, OUT message text, OUT refusal_balance bigint, OUT refusal_currency text,
    OUT replayed boolean, OUT seq bigint, OUT transaction_id text, OUT kind text,
    OUT player_id text, OUT round_id text, OUT session_id text, OUT currency text,
    OUT amount bigint, OUT round_closed boolean, OUT debit_transaction_id text,
    OUT balance_change bigint, OUT balance_after bigint, OUT rolled_back_by text,
    OUT created_at timestamptz, OUT operator_id text, OUT brand_id text)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    pl sandbox_wallet.players%ROWTYPE;
    tx sandbox_wallet.transactions%ROWTYPE;
    deb sandbox_wallet.transactions%ROWTYPE;
    change bigint;
    cancelled text;
BEGIN
    replayed := false;
    SELECT * INTO pl FROM sandbox_wallet.players p WHERE p.player_id = p_player_id FOR UPDATE;
    SELECT * INTO tx FROM sandbox_wallet.transactions t
     WHERE t.transaction_id = p_transaction_id;
    IF FOUND THEN
        replayed := true;
    ELSIF pl.player_id IS NULL THEN
        refusal := 'PLAYER_NOT_FOUND';
        message := format('no player %s', p_player_id);
        RETURN;
    ELSIF p_kind = 'debit' THEN
        SELECT t.transaction_id INTO cancelled FROM sandbox_wallet.transactions t
         WHERE t.kind = 'rollback' AND t.debit_transaction_id = p_transaction_id LIMIT 1;
        IF cancelled IS NOT NULL THEN
            refusal := 'TRANSACTION_ROLLED_BACK';
            message := format('debit %s was rolled back by %s before it arrived',
                              p_transaction_id, cancelled);
        ELSIF pl.currency <> p_currency THEN
            refusal := 'WRONG_CURRENCY';
            message := format('player''s wallet is in %s', pl.currency);
        ELSIF pl.blocked THEN
            refusal := 'PLAYER_BLOCKED';
            message := format('player %s is blocked', pl.player_id);
        ELSIF EXISTS (SELECT FROM sandbox_wallet.expired_sessions e
                       WHERE e.session_id = p_session_id) THEN
            refusal := 'SESSION_EXPIRED';
            message := format('session %s has expired', p_session_id);
        ELSIF pl.debit_limit > 0 AND p_amount > pl.debit_limit THEN
            refusal := 'LIMIT_EXCEEDED';
            message := format('debit above the player''s limit of %s', pl.debit_limit);
        ELSIF p_amount > pl.balance THEN
            refusal := 'INSUFFICIENT_FUNDS';
            message := 'balance does not cover the debit';
            refusal_balance := pl.balance;
            refusal_currency := pl.currency;
        END IF;
        IF refusal IS NOT NULL THEN
            RETURN;
        END IF;
        change := -p_amount;
    ELSIF p_kind = 'credit' THEN
        IF pl.currency <> p_currency THEN
            refusal := 'WRONG_CURRENCY';
            message := format('player''s wallet is in %s', pl.currency);
            RETURN;
        END IF;
        change := p_amount;
    ELSE  -- rollback
        SELECT * INTO deb FROM sandbox_wallet.transactions t
         WHERE t.transaction_id = p_debit_transaction_id;
        IF NOT FOUND THEN
            IF pl.currency <> p_currency THEN
                refusal := 'WRONG_CURRENCY';
                message := format('player''s wallet is in %s', pl.currency);
                RETURN;
            END IF;
            change := 0;
        ELSIF deb.kind <> 'debit' OR deb.player_id <> p_player_id THEN
            refusal := 'INVALID_REQUEST';
            message := format('%s is not a debit of %s', p_debit_transaction_id, p_player_id);
            RETURN;
        ELSIF deb.amount <> p_amount OR deb.currency <> p_currency THEN
            refusal := 'INVALID_REQUEST';
            message := 'rollback amount or currency differs from the debit''s';
            RETURN;
        ELSIF deb.rolled_back_by <> '' THEN
            change := 0;
        ELSE
            change := deb.amount;
        END IF;
    END IF;
    IF NOT replayed THEN
        IF change <> 0 THEN
            UPDATE sandbox_wallet.players p SET balance = pl.balance + change
             WHERE p.player_id = pl.player_id;
        END IF;
        INSERT INTO sandbox_wallet.transactions AS t (transaction_id, kind, player_id, round_id,
                    session_id, currency, amount, round_closed, debit_transaction_id,
                    balance_change, balance_after, operator_id, brand_id)
        VALUES (p_transaction_id, p_kind, p_player_id, p_round_id, p_session_id, p_currency,
                p_amount, p_round_closed, p_debit_transaction_id, change, pl.balance + change,
                p_operator_id, p_brand_id)
        RETURNING t.* INTO tx;
        IF p_kind = 'rollback' AND change <> 0 THEN
            UPDATE sandbox_wallet.transactions t SET rolled_back_by = p_transaction_id
             WHERE t.transaction_id = p_debit_transaction_id;
        END IF;
    END IF;
    seq := tx.seq; transaction_id := tx.transaction_id; kind := tx.kind;
    player_id := tx.player_id; round_id := tx.round_id; session_id := tx.session_id;
    currency := tx.currency; amount := tx.amount; round_closed := tx.round_closed;
    debit_transaction_id := tx.debit_transaction_id; balance_change := tx.balance_change;
    balance_after := tx.balance_after; rolled_back_by := tx.rolled_back_by;
    created_at := tx.created_at; operator_id := tx.operator_id; brand_id := tx.brand_id;
END
$$;
