-- The round journal. Every table holding a player's data leads its primary key with the
-- player's shard key (player_key = operator id / player id), so the journal can be distributed
-- by player (Citus) without cross-shard transactions: one call touches one player.

CREATE TABLE operator_api_keys (
    key_hash    text PRIMARY KEY,             -- sha256 hex of the API key; the key is never stored
    operator_id text NOT NULL,
    label       text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
    player_key  text NOT NULL,
    token_hash  text NOT NULL,                -- sha256 hex of the session token
    session_id  text NOT NULL,
    operator_id text NOT NULL,
    brand_id    text NOT NULL,
    player_id   text NOT NULL,
    currency    text NOT NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_key, token_hash)
);

CREATE TABLE rounds (
    player_key   text NOT NULL,
    round_id     text NOT NULL,
    session_id   text NOT NULL,
    operator_id  text NOT NULL,
    brand_id     text NOT NULL,
    player_id    text NOT NULL,
    currency     text NOT NULL,
    variant      text NOT NULL,
    seq          integer NOT NULL,
    status       text NOT NULL CHECK (status IN ('insurance', 'player_turn', 'settled', 'voided')),
    forced_cards text[] NOT NULL DEFAULT '{}', -- non-empty only for test-mode rounds
    total_staked bigint NOT NULL CHECK (total_staked >= 0),
    total_paid   bigint NOT NULL CHECK (total_paid >= 0),
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at  timestamptz,
    PRIMARY KEY (player_key, round_id)
);
-- Recall (newest first) and the unfinished-round lookup.
CREATE INDEX rounds_recall ON rounds (player_key, brand_id, created_at DESC, round_id DESC);
CREATE UNIQUE INDEX rounds_one_unfinished ON rounds (player_key)
    WHERE status IN ('insurance', 'player_turn');

CREATE TABLE round_events (
    player_key text NOT NULL,
    round_id   text NOT NULL,
    event_no   integer NOT NULL CHECK (event_no >= 0),
    kind       text NOT NULL,
    payload    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (player_key, round_id, event_no),
    FOREIGN KEY (player_key, round_id) REFERENCES rounds (player_key, round_id)
);

-- The journal is append-only: an event, once written, is never changed or removed.
CREATE FUNCTION round_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'round_events is append-only';
END;
$$;
CREATE TRIGGER round_events_append_only BEFORE UPDATE OR DELETE ON round_events
    FOR EACH ROW EXECUTE FUNCTION round_events_append_only();

CREATE TABLE idempotency_records (
    player_key   text NOT NULL,
    request_id   text NOT NULL,
    method       text NOT NULL,
    request_hash text NOT NULL,
    response     text NOT NULL,               -- the stored answer, replayed verbatim
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_key, request_id)
);

-- The wallet outbox: one row per money call, written before the call is sent.
CREATE TABLE wallet_transactions (
    player_key           text NOT NULL,
    transaction_id       text NOT NULL,
    round_id             text NOT NULL,
    kind                 text NOT NULL CHECK (kind IN ('debit', 'credit', 'rollback')),
    amount               bigint NOT NULL CHECK (amount >= 0),
    status               text NOT NULL CHECK (status IN
                             ('pending', 'applied', 'booked', 'refused', 'unknown', 'rolled_back')),
    balance_after        bigint,
    debit_transaction_id text NOT NULL DEFAULT '',
    session_id           text NOT NULL DEFAULT '',
    currency             text NOT NULL DEFAULT '',
    created_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (player_key, transaction_id)
);
CREATE INDEX wallet_transactions_round ON wallet_transactions (player_key, round_id, created_at);
CREATE INDEX wallet_transactions_open ON wallet_transactions (player_key)
    WHERE status IN ('pending', 'unknown', 'applied');
