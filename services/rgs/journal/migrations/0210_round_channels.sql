-- RTP monitoring per channel (issue 25, docs/rtp-monitoring.md): the edge each round's bets
-- came through, journalled with the round, so the monitoring can tell the browser edge's
-- rounds from native gRPC's. Additive: nullable columns without a default (no table is
-- rewritten); a row without one (a previous release's, or dealt in process) is reported as
-- channel `unknown`.

-- A solo round's channel: the edge its Deal came through, written by its first step.
ALTER TABLE rounds ADD COLUMN channel text;
ALTER TABLE rounds ADD CONSTRAINT rounds_channel_check
    CHECK (channel IN ('grpc', 'browser')) NOT VALID;

-- A table round's bettors, seated and behind: [{"player_key", "brand_id", "channel"}, ...],
-- each with their brand and the edge their bets came through (a table's players may come from
-- several brands and edges).
ALTER TABLE table_rounds ADD COLUMN bettors jsonb;
