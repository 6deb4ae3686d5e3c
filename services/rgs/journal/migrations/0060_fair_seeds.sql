-- Provably fair rounds (issue 17): the secret server seeds behind the published commitments.
-- A seed is stored before its commitment is shown and before the round that uses it is dealt, so
-- any replica can continue the round and a crash never loses (or reveals) it. The API shows a
-- round's seed only once the round is settled or voided.

-- The seed each session's next round will use (one row per session, replaced by every Deal).
CREATE TABLE fair_next_seeds (
    player_key   text NOT NULL,
    session_id   text NOT NULL,
    server_seed  text NOT NULL CHECK (server_seed ~ '^[0-9a-f]{64}$'),
    commitment   text NOT NULL CHECK (commitment ~ '^[0-9a-f]{64}$'),
    round_number bigint NOT NULL CHECK (round_number >= 1),
    updated_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (player_key, session_id)
);

-- The seeds of each fair round, written just before it is dealt (a Deal refused after that
-- leaves a row without a round: its seed is never used again and never shown).
CREATE TABLE round_seeds (
    player_key      text NOT NULL,
    round_id        text NOT NULL,
    server_seed     text NOT NULL CHECK (server_seed ~ '^[0-9a-f]{64}$'),
    commitment      text NOT NULL CHECK (commitment ~ '^[0-9a-f]{64}$'),
    client_seed     text NOT NULL,
    round_number    bigint NOT NULL CHECK (round_number >= 1),
    decks           integer NOT NULL CHECK (decks >= 1),
    next_commitment text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (player_key, round_id)
);
