"""The SQL of the shared tables' journal (:mod:`rgs.journal.tables`), in the journal's schema."""

from __future__ import annotations

import zlib

from rgs.journal.leases import take_player_then
from rgs.journal.statements import (
    MOVEMENT_JSON,
    OPEN_MOVEMENT,
    PROMOTIONAL,
    SOLO_MOVEMENT_JSON,
)

Q_ENSURE = """
INSERT INTO game_tables (table_id, version, state) VALUES ($1, 0, $2::jsonb)
ON CONFLICT (table_id) DO NOTHING"""
# The state is sent only when it is not the version the replica has decoded already ($2).
Q_LOAD = """
SELECT version, last_seq, CASE WHEN version <> $2 THEN state::text END AS state
FROM game_tables WHERE table_id = $1"""
Q_LOCK = Q_LOAD + " FOR UPDATE"
# The table and a player's request record, from one snapshot ($3: player key, $4: request).
Q_LOAD_WITH_REQUEST = """
SELECT t.version, t.last_seq, CASE WHEN t.version <> $2 THEN t.state::text END AS state,
       rq.request_id, rq.method, rq.request_hash, rq.response
FROM game_tables t
LEFT JOIN table_requests rq ON rq.table_id = t.table_id AND rq.player_key = $3
                           AND rq.request_id = $4
WHERE t.table_id = $1"""
# What a command reads once it holds its player (key $1): the table ($2, the state only when
# it is not version $4), the request's record ($3), the player's open outbox rows and their
# movements in the table's current round (open credits with their promotional mark: a free bet's).
Q_COMMAND_READ = f"""
SELECT rq.request_id, rq.method, rq.request_hash, rq.response,
       (SELECT {SOLO_MOVEMENT_JSON.format(promotional=PROMOTIONAL.format(t="o"))}
          FROM wallet_transactions o
         WHERE o.player_key = $1 AND {OPEN_MOVEMENT}) AS open_rows,
       (SELECT {MOVEMENT_JSON} FROM wallet_transactions w
         WHERE w.player_key = $1 AND w.round_id = t.state->>'round_id') AS round_rows,
       (SELECT json_agg(b.bet ORDER BY b.placed_at, b.seat)::text FROM table_behind_bets b
         WHERE b.table_id = t.table_id AND b.round_id = t.state->>'round_id'
           AND b.player_key = $1) AS behind_rows,
       (SELECT json_agg(i.choice ORDER BY i.decided_at, i.seat)::text
          FROM table_behind_insurance i
         WHERE i.table_id = t.table_id AND i.round_id = t.state->>'round_id'
           AND i.player_key = $1) AS insurance_rows,
       t.version, t.last_seq, CASE WHEN t.version <> $4 THEN t.state::text END AS state
FROM game_tables t
LEFT JOIN table_requests rq ON rq.table_id = t.table_id AND rq.player_key = $1
                           AND rq.request_id = $3
WHERE t.table_id = $2"""
#: The same with the player's lease taken in the statement (without / with the advisory lock).
Q_COMMAND_READ_LEASED = {False: take_player_then(Q_COMMAND_READ, 5, advisory=False),
                         True: take_player_then(Q_COMMAND_READ, 5, advisory=True)}
# ---- Bet Behinds on rows of their own while betting is open (rgs.service.tables.behind)
# A round's rows, in the order they were placed, read by a transition under the row lock.
Q_BEHIND_ROWS = """
SELECT bet::text AS bet FROM table_behind_bets WHERE table_id = $1 AND round_id = $2
ORDER BY placed_at, player_key, seat"""
# Rows a transition returned or materialised ($3, $4: player keys and seats).
Q_BEHIND_DELETE = """
DELETE FROM table_behind_bets WHERE table_id = $1 AND round_id = $2
  AND (player_key, seat) IN (SELECT * FROM unnest($3::text[], $4::int[]))"""
#: First key of a table's turn lock: a transaction-level advisory lock a transition takes
#: exclusive and a Bet Behind placement shared, before it reads the table. Placements do not
#: wait for each other; a transition waits for those under way, and later ones wait for it:
#: the lock manager queues them in order, where a stream of FOR SHARE row locks would keep a
#: waiting FOR UPDATE out for as long as it lasts.
TURN_LOCK_CLASS = 0x52_54


def turn_lock(table_id: str, *, shared: bool) -> str:
    """SQL taking the table's turn lock (its second key a CRC-32 of the id, as a literal)."""
    key = zlib.crc32(table_id.encode()) - 2**31
    return (f"SELECT pg_advisory_xact_lock{'_shared' if shared else ''}"
            f"({TURN_LOCK_CLASS}, {key})")


# A row of its own (a Bet Behind placed, a live insurance decision) reads only the table's
# phase and round (under the turn lock, shared).
Q_BEHIND_SHARE = """
SELECT last_seq, state->>'phase' AS phase, state->>'round_id' AS round_id
FROM game_tables WHERE table_id = $1"""
# The rows inserted (a player's second bet behind the same seat of a round is not).
Q_BEHIND_INSERT = """
INSERT INTO table_behind_bets (table_id, round_id, player_key, seat, bet)
SELECT $1, $2, k, s, b::jsonb FROM unnest($3::text[], $4::int[], $5::text[]) AS u(k, s, b)
ON CONFLICT DO NOTHING RETURNING seat"""
# ---- Bet Behinds' live insurance decisions on rows of their own while insurance is open
# (rgs.service.tables.live_insurance): read by a transition under the row lock, in the order
# made; deleted by the one that closed insurance; inserted by a decision (a second decision
# of the same Bet Behind is not); counted once a decision is committed.
Q_INSURANCE_ROWS = """
SELECT json_agg(choice ORDER BY decided_at, player_key, seat)::text
FROM table_behind_insurance WHERE table_id = $1 AND round_id = $2"""
Q_INSURANCE_DELETE = """
DELETE FROM table_behind_insurance WHERE table_id = $1 AND round_id = $2"""
Q_INSURANCE_INSERT = """
INSERT INTO table_behind_insurance (table_id, round_id, player_key, seat, choice)
VALUES ($1, $2, $3, $4, $5::jsonb) ON CONFLICT DO NOTHING RETURNING seat"""
Q_INSURANCE_COUNT = """
SELECT count(*) FROM table_behind_insurance WHERE table_id = $1 AND round_id = $2"""
Q_EVENTS_AFTER = """
SELECT seq, kind, payload::text AS payload, created_at FROM table_events
WHERE table_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"""
Q_FENCE_CLOCK = """
UPDATE leases SET expires_at = clock_timestamp() + $3::interval
WHERE kind = 'table' AND key = $1 AND epoch = $2 AND holder IS NOT NULL RETURNING epoch"""
# Every lease of the transition's players renewed in one statement; the keys renewed.
Q_FENCE_PLAYERS = """
UPDATE leases SET expires_at = clock_timestamp() + $3::interval
WHERE kind = 'player' AND holder IS NOT NULL
  AND (key, epoch) IN (SELECT * FROM unnest($1::text[], $2::bigint[])) RETURNING key"""
Q_WRITE = """
UPDATE game_tables SET version = version + 1, last_seq = last_seq + $2, state = $3::jsonb,
       due_at = $4, updated_at = clock_timestamp()
WHERE table_id = $1 RETURNING last_seq"""
Q_EVENT = """
INSERT INTO table_events (table_id, seq, kind, payload) VALUES ($1, $2, $3, $4::jsonb)"""
# Debits booked with the balance the wallet reported ($3) and its own reference ($4; '' keeps
# the stored one); a debit's success is recorded here (it may still be pending: one write fewer
# per stake).
Q_BOOK = """
UPDATE wallet_transactions w SET status = 'booked', updated_at = clock_timestamp(),
       balance_after = COALESCE(b.balance, w.balance_after),
       wallet_reference = COALESCE(NULLIF(b.reference, ''), w.wallet_reference)
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[])
     AS b(player_key, transaction_id, balance, reference)
WHERE w.player_key = b.player_key AND w.transaction_id = b.transaction_id
  AND w.kind = 'debit' AND w.status IN ('pending', 'applied') RETURNING w.transaction_id"""
Q_MOVEMENT = """
INSERT INTO wallet_transactions (player_key, transaction_id, round_id, kind, amount, status,
    debit_transaction_id, session_id, currency, brand_id)
VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9)"""
Q_ROUND = """
INSERT INTO table_rounds (table_id, round_id, round_no, variant, status, events, finished_at,
                          fair, names, bettors)
VALUES ($1, $2, $3, $4, $5, $6::jsonb,
        CASE WHEN $5 IN ('settled', 'voided', 'not_dealt') THEN clock_timestamp() END,
        $7::jsonb, $8::jsonb, $9::jsonb)
ON CONFLICT (table_id, round_id) DO UPDATE SET status = EXCLUDED.status,
    events = EXCLUDED.events, finished_at = EXCLUDED.finished_at,
    fair = COALESCE(EXCLUDED.fair, table_rounds.fair),
    names = COALESCE(EXCLUDED.names, table_rounds.names),
    bettors = COALESCE(EXCLUDED.bettors, table_rounds.bettors)"""
Q_ROUND_PLAYER = """
INSERT INTO table_round_players (player_key, round_id, table_id, operator_id, staked, paid)
VALUES ($1, $2, $3, $4, $5, $6)"""
Q_REQUEST = """
INSERT INTO table_requests (table_id, player_key, request_id, method, request_hash, response)
VALUES ($1, $2, $3, $4, $5, $6)"""
Q_FIND_REQUEST = """
SELECT request_id, method, request_hash, response FROM table_requests
WHERE table_id = $1 AND player_key = $2 AND request_id = $3"""
Q_ANSWERED = """
SELECT player_key, request_id FROM table_requests
WHERE table_id = $1
  AND (player_key, request_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))"""
Q_TAKE_CLOCK = """
INSERT INTO leases AS l (kind, key, holder, epoch, expires_at)
VALUES ('table', $1, $2, 1, clock_timestamp() + $3::interval)
ON CONFLICT (kind, key) DO UPDATE
   SET holder = EXCLUDED.holder,
       epoch = CASE WHEN l.holder = EXCLUDED.holder THEN l.epoch ELSE l.epoch + 1 END,
       expires_at = EXCLUDED.expires_at,
       acquired_at = CASE WHEN l.holder = EXCLUDED.holder THEN l.acquired_at
                          ELSE clock_timestamp() END
 WHERE l.holder IS NULL OR l.holder = EXCLUDED.holder OR l.expires_at <= clock_timestamp()
RETURNING epoch"""
Q_RELEASE_CLOCK = """
UPDATE leases SET holder = NULL, expires_at = clock_timestamp()
WHERE kind = 'table' AND key = $1 AND epoch = $2"""
Q_GET_ROUND = """
SELECT table_id, round_id, round_no, variant, status, events::text AS events,
       fair::text AS fair, names::text AS names, bettors::text AS bettors, created_at,
       finished_at
FROM table_rounds WHERE round_id = $1"""
# The wallet movements of one operator's players in a round ($2: 'operator/').
Q_OPERATOR_ROUND_MOVEMENTS = f"""
SELECT player_key, {MOVEMENT_JSON} AS movements FROM wallet_transactions
WHERE round_id = $1 AND left(player_key, length($2)) = $2
GROUP BY player_key ORDER BY player_key"""
# A player's table rounds in a brand, newest first by their first movement, before ($3, $4).
Q_PLAYER_TABLE_ROUNDS = """
SELECT w.round_id, min(w.created_at) AS first_at
FROM wallet_transactions w JOIN table_rounds tr ON tr.round_id = w.round_id
WHERE w.player_key = $1 AND w.brand_id = $2 AND tr.finished_at IS NOT NULL
GROUP BY w.round_id
HAVING $3::timestamptz IS NULL OR (min(w.created_at), w.round_id) < ($3::timestamptz, $4::text)
ORDER BY first_at DESC, w.round_id DESC LIMIT $5"""
Q_ROUND_PLAYERS = """
SELECT player_key, operator_id, staked, paid FROM table_round_players
WHERE round_id = $1 ORDER BY player_key"""
# Players watching a table, said by one replica (arrays of keys, seen, expiry): a newer
# sighting wins, and the expiry is the newest session's.
Q_MARK_WATCHING = """
INSERT INTO table_watchers AS w (table_id, player_key, seen_at, expires_at)
SELECT $1, k, s, e FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) AS u(k, s, e)
ON CONFLICT (table_id, player_key) DO UPDATE
   SET seen_at = GREATEST(w.seen_at, EXCLUDED.seen_at),
       expires_at = GREATEST(w.expires_at, EXCLUDED.expires_at)"""
Q_WATCHING = """
SELECT player_key, seen_at, expires_at FROM table_watchers WHERE table_id = $1"""
