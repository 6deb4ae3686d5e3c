-- Bet Behinds on rows of their own while betting is open (issue 27, docs/tables.md "When
-- everyone bets at once"): a Bet Behind placed during betting is one row here, inserted with
-- its debit's booking in a short transaction that takes the table's turn lock shared (an
-- advisory lock transitions take exclusive; it never rewrites the table's state document),
-- and materialised into the state by the transition
-- that closes betting (which deletes the rows). A transition while betting is open reads the
-- round's rows with the state; the rows it refunds (a seat given back) it deletes.
-- Additive: a new table, nothing rewritten.
CREATE TABLE table_behind_bets (
    table_id   text NOT NULL REFERENCES game_tables (table_id),
    round_id   text NOT NULL,
    player_key text NOT NULL,
    seat       integer NOT NULL CHECK (seat BETWEEN 1 AND 7),
    -- The Bet Behind as the table's state keeps it (rgs.service.tables.model.Behind).
    bet        jsonb NOT NULL,
    placed_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- Keyed by table, round, player and seat: a player's own rows of a round are read by key.
    PRIMARY KEY (table_id, round_id, player_key, seat)
);
