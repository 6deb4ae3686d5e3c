-- Bet Behinds' live insurance decisions on rows of their own while insurance is open (issue
-- 27, docs/tables.md "When everyone bets at once"): a Bet Behind whose preset is "ask" decides
-- with one row here, inserted with its debit's booking in a short transaction that takes the
-- table's turn lock shared (as a Bet Behind placed while betting is open: table_behind_bets),
-- never rewriting the table's state document. A transition while insurance is open reads the
-- round's rows with the state; the one that closes insurance applies them and deletes them.
-- Additive: a new table, nothing rewritten.
CREATE TABLE table_behind_insurance (
    table_id   text NOT NULL REFERENCES game_tables (table_id),
    round_id   text NOT NULL,
    player_key text NOT NULL,
    seat       integer NOT NULL CHECK (seat BETWEEN 1 AND 7),
    -- The decision as the table's state keeps it (rgs.service.tables.model.InsuranceChoice).
    choice     jsonb NOT NULL,
    decided_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- One decision per Bet Behind (a player's on a seat) and round.
    PRIMARY KEY (table_id, round_id, player_key, seat)
);
