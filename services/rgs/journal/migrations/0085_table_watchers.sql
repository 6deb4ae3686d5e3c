-- Seats that come back (issue 22): a seat is given back when its player has neither watched
-- the table nor acted at it for the table's away_s seconds. Each replica says every few seconds
-- which players watch which table on it (a WatchTable stream); the replica holding a table's
-- clock reads it. One row per table and player, rewritten in place; a previous release's
-- replicas neither write nor read it (expand only).
CREATE TABLE table_watchers (
    table_id   text        NOT NULL,
    player_key text        NOT NULL,
    seen_at    timestamptz NOT NULL,
    -- The newest session the player watches with expires then (a seat of an expired session
    -- is given back unless a newer one watches).
    expires_at timestamptz,
    PRIMARY KEY (table_id, player_key)
);
