-- Leases: who may write a player's journal right now, as a row instead of a session advisory
-- lock, so the journal works through a transaction-mode pooler (PgBouncer) where a session
-- lock would be taken on one server connection and forgotten on the next statement.
--
-- A lease is taken by one autocommitted upsert when it is free or expired; every taking adds
-- one to epoch, the fencing token. Every write of the holder checks, in its own statement or
-- transaction, that the row still carries its holder and epoch (and pushes expires_at on), so
-- a holder that paused past its lease writes nothing once another call took the lease over.
--
-- kind says what is leased ('player' today; the shared tables' clock can lease its own kind),
-- key is the leased thing (the player's shard key), so the table distributes by key with the
-- player tables (ops/scale-out.md). Rows stay after release: epochs only grow.
--
-- Expand only: the previous release neither reads nor writes this table.
CREATE TABLE leases (
    kind        text        NOT NULL,
    key         text        NOT NULL,
    holder      text,                         -- NULL when released
    epoch       bigint      NOT NULL CHECK (epoch > 0),
    expires_at  timestamptz NOT NULL,
    acquired_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (kind, key)
);
