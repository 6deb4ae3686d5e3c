-- Free bets at shared tables (issue 24): each free bet a player staked on their seat's main bet
-- at a table round (several players of one round may each stake one). A table use is written,
-- under the player's exclusive journal, just before the table takes the bet, and deleted when
-- the table does not take it; it counts from its record. Expand only: a previous release reads
-- this table.
CREATE TABLE free_bet_table_uses (
    round_id    text NOT NULL,
    player_key  text NOT NULL,
    table_id    text NOT NULL,
    operator_id text NOT NULL,
    grant_id    text NOT NULL,
    seat        integer NOT NULL,
    value       bigint NOT NULL,
    used_at     timestamptz NOT NULL,
    paid        bigint,
    PRIMARY KEY (round_id, player_key),
    FOREIGN KEY (operator_id, grant_id) REFERENCES free_bet_grants (operator_id, grant_id)
);
CREATE INDEX free_bet_table_uses_grant ON free_bet_table_uses (operator_id, grant_id);
