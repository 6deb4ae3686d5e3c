-- The sandbox wallet's ledger: players with balances and every money movement it applied.
-- Amounts are bigint minor units; a balance never goes negative.

CREATE TABLE sandbox_wallet.players (
    player_id   text PRIMARY KEY,
    currency    char(3) NOT NULL,
    balance     bigint NOT NULL CHECK (balance >= 0),
    blocked     boolean NOT NULL DEFAULT false,
    -- Largest single debit in minor units; 0 means no limit (a stand-in for operator limits).
    debit_limit bigint NOT NULL DEFAULT 0 CHECK (debit_limit >= 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per transaction id ever accepted: the idempotency record and the ledger at once.
-- A rollback of a debit the wallet never saw is stored too (balance_change 0), which is what
-- blocks that debit if it arrives later.
CREATE TABLE sandbox_wallet.transactions (
    seq                  bigserial UNIQUE,
    transaction_id       text PRIMARY KEY,
    kind                 text NOT NULL CHECK (kind IN ('debit', 'credit', 'rollback')),
    player_id            text NOT NULL REFERENCES sandbox_wallet.players (player_id),
    round_id             text NOT NULL,
    session_id           text NOT NULL,
    currency             char(3) NOT NULL,
    amount               bigint NOT NULL CHECK (amount >= 0),
    round_closed         boolean NOT NULL DEFAULT false,
    debit_transaction_id text NOT NULL DEFAULT '',
    balance_change       bigint NOT NULL,
    balance_after        bigint NOT NULL CHECK (balance_after >= 0),
    rolled_back_by       text NOT NULL DEFAULT '',
    created_at           timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX transactions_player_idx ON sandbox_wallet.transactions (player_id, seq);
CREATE INDEX transactions_rollback_target_idx ON sandbox_wallet.transactions (debit_transaction_id)
    WHERE kind = 'rollback';

-- Sessions the control service expired: debits in them are refused, credits and rollbacks not.
CREATE TABLE sandbox_wallet.expired_sessions (
    session_id text PRIMARY KEY,
    expired_at timestamptz NOT NULL DEFAULT now()
);
