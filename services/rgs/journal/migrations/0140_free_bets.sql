-- Free bets (issue 24): an operator's grants of free bets to a player, and each one used.
-- A use is written, under the player's exclusive journal, just before its round's commit; a
-- use whose round never committed (the Deal failed or the replica died in between) counts for
-- nothing: every reader joins the round. Expand only: a previous release reads neither table.
CREATE TABLE free_bet_grants (
    operator_id text NOT NULL,
    grant_id    text NOT NULL,
    brand_id    text NOT NULL,
    player_id   text NOT NULL,
    currency    text NOT NULL,
    value       bigint NOT NULL CHECK (value > 0),
    count       integer NOT NULL CHECK (count > 0),
    variants    text[] NOT NULL DEFAULT '{}',
    tables      text[] NOT NULL DEFAULT '{}',
    expires_at  timestamptz NOT NULL,
    granted_at  timestamptz NOT NULL,
    revoked_at  timestamptz,
    PRIMARY KEY (operator_id, grant_id)
);
CREATE INDEX free_bet_grants_player ON free_bet_grants (operator_id, brand_id, player_id);

CREATE TABLE free_bet_uses (
    round_id    text PRIMARY KEY,
    player_key  text NOT NULL,
    operator_id text NOT NULL,
    grant_id    text NOT NULL,
    seat        integer NOT NULL,
    value       bigint NOT NULL,
    used_at     timestamptz NOT NULL,
    paid        bigint,
    FOREIGN KEY (operator_id, grant_id) REFERENCES free_bet_grants (operator_id, grant_id)
);
CREATE INDEX free_bet_uses_grant ON free_bet_uses (operator_id, grant_id);
