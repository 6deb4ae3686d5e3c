-- RTP monitoring (issue 25, docs/rtp-monitoring.md): the background worker's figures of each
-- settled round and where it has read the journal to, so that it resumes after a restart.
-- Additive only: new tables that nothing on a player's call path reads or writes.

-- How far the worker has read each source ('solo': rounds, 'table': table_rounds), in the
-- order it reads them: finished_at, then the round's key.
CREATE TABLE rtp_cursor (
    source      text PRIMARY KEY CHECK (source IN ('solo', 'table')),
    finished_at timestamptz NOT NULL,
    round_key   text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- One row per settled round valued (minor units; the two expectations as floats).
CREATE TABLE rtp_rounds (
    source       text NOT NULL CHECK (source IN ('solo', 'table')),
    round_key    text NOT NULL,             -- player_key/round_id, or table_id/round_id
    brand_id     text NOT NULL,             -- '' at a shared table
    variant      text NOT NULL,
    table_id     text NOT NULL DEFAULT '',  -- '' for a solo round
    stake_band   text NOT NULL,
    channel      text NOT NULL DEFAULT 'unknown',
    settled_at   timestamptz NOT NULL,
    base_stake   bigint NOT NULL CHECK (base_stake >= 0),
    observed_net bigint NOT NULL,
    par_net      double precision NOT NULL,
    expected_net double precision NOT NULL,
    regret       double precision NOT NULL,
    faults       text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (source, round_key)
);
CREATE INDEX rtp_rounds_settled ON rtp_rounds (settled_at);
