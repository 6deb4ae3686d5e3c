-- Shared tables (issue 13). A table is a small state machine whose row moves forward with a
-- compare-and-set on its version; every transition appends numbered public events in the same
-- transaction. Tables distribute by table id; the money of a table round stays in each
-- player's own outbox (wallet_transactions, by player key).

CREATE TABLE game_tables (
    table_id   text PRIMARY KEY,
    version    bigint NOT NULL CHECK (version >= 0),
    last_seq   bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),  -- newest table_events.seq
    state      jsonb NOT NULL,                                   -- seats, bets, round in play
    due_at     timestamptz,                                      -- the clock's next deadline
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Everything that happens at a table, numbered per table from 1, as watchers see it (no hole
-- card before it is turned over). Append-only, like round_events.
CREATE TABLE table_events (
    table_id   text NOT NULL REFERENCES game_tables (table_id),
    seq        bigint NOT NULL CHECK (seq > 0),
    kind       text NOT NULL,
    payload    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, seq)
);
CREATE FUNCTION table_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'table_events is append-only';
END;
$$;
CREATE TRIGGER table_events_append_only BEFORE UPDATE OR DELETE ON table_events
    FOR EACH ROW EXECUTE FUNCTION table_events_append_only();

-- One row per dealt table round: its engine events (server side, hole card included).
CREATE TABLE table_rounds (
    table_id    text NOT NULL REFERENCES game_tables (table_id),
    round_id    text NOT NULL,
    round_no    bigint NOT NULL,
    variant     text NOT NULL,
    status      text NOT NULL CHECK (status IN ('insurance', 'player_turn', 'settled', 'voided')),
    events      jsonb NOT NULL,                                  -- [[kind, payload], ...]
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz,
    PRIMARY KEY (table_id, round_id)
);
CREATE UNIQUE INDEX table_rounds_id ON table_rounds (round_id);

-- Each player's share of a table round (seated and behind alike), by player key: what an
-- operator's recall shows of its own players' money.
CREATE TABLE table_round_players (
    player_key  text NOT NULL,
    round_id    text NOT NULL,
    table_id    text NOT NULL,
    operator_id text NOT NULL,
    staked      bigint NOT NULL CHECK (staked >= 0),
    paid        bigint NOT NULL CHECK (paid >= 0),
    PRIMARY KEY (player_key, round_id)
);
CREATE INDEX table_round_players_round ON table_round_players (round_id);

-- Idempotency records of the players' table commands.
CREATE TABLE table_requests (
    table_id     text NOT NULL,
    player_key   text NOT NULL,
    request_id   text NOT NULL,
    method       text NOT NULL,
    request_hash text NOT NULL,
    response     text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, player_key, request_id)
);
