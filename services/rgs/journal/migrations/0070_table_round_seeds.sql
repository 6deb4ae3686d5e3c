-- Provably fair rounds at shared tables (issue 17). A table's committed next seed and the seed
-- of the round being bet on or played live in the table's state (game_tables.state), written by
-- the transition that first shows their commitment. When a round is dealt its provably fair
-- inputs are written with its row: the secret server seed, its commitment, the seats' client
-- seeds and the round's client seed, the round number (the table's round_no) and the decks.
-- The API shows the server seed only once the round is settled or voided. Null: a round dealt
-- by a release without provably fair table rounds (expand only: older replicas leave it as is).
ALTER TABLE table_rounds ADD COLUMN fair jsonb;
