-- Players scoped by operator everywhere (issue 12). The player key (operator id / player id)
-- already leads every key; this makes the rest of the rules say exactly what they cover.

-- What one player may have open at once: one unfinished round per brand and currency, the
-- context a session plays in. So whatever blocks a Deal is found by GetRound in that session
-- (one round per player across brands blocked a Deal at demo-casino-usd with a round GetRound
-- there could not see).
DROP INDEX rounds_one_unfinished;
CREATE UNIQUE INDEX rounds_one_unfinished ON rounds (player_key, brand_id, currency)
    WHERE status IN ('insurance', 'player_turn');

-- Request ids are namespaced by the kind of caller: the operator's back office (CreateSession,
-- VoidRound), the player's session (Deal, Act, Settle) and the server itself (the sweeper, an
-- automatic void). A player reusing an id the operator used no longer blocks the operator.
ALTER TABLE idempotency_records
    ADD COLUMN scope text NOT NULL DEFAULT 'player'
        CHECK (scope IN ('operator', 'player', 'system'));
UPDATE idempotency_records SET scope = 'operator'
    WHERE method IN ('create_session', 'void_round');
UPDATE idempotency_records SET scope = 'system'
    WHERE request_id LIKE 'sweep:%' OR request_id LIKE 'autovoid:%';
ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_pkey;
ALTER TABLE idempotency_records ADD PRIMARY KEY (player_key, scope, request_id);

-- Every outbox row keeps the brand its call is made for (a retry repeats it exactly, to the
-- operator's wallet).
ALTER TABLE wallet_transactions ADD COLUMN brand_id text NOT NULL DEFAULT '';
UPDATE wallet_transactions w SET brand_id = r.brand_id
    FROM rounds r WHERE r.player_key = w.player_key AND r.round_id = w.round_id;

-- The brand's options a round was dealt with (deck count, side bets, Cash Out): the round
-- replays with them whatever the platform file says later. '{}' is the variant as written.
ALTER TABLE rounds ADD COLUMN options jsonb NOT NULL DEFAULT '{}';
