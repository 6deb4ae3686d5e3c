"""The journal's SQL on PostgreSQL: every statement :mod:`rgs.journal.postgres` sends, in one
place, so a schema change meets all of them here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rgs.journal.leases import fence, resume, take_player_then
from rgs.service.model import (
    OPEN_STATUSES,
    CallRead,
    MovementStatus,
)


def _sql_list(values: Sequence[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def open_movement_sql() -> str:
    """The outbox rule (:func:`rgs.service.model.is_open`) as one SQL condition on
    ``wallet_transactions``, written out from :data:`~rgs.service.model.OPEN_STATUSES`.

    Every query for open rows uses it, and so does the partial index ``wallet_transactions_open``
    (migration 0003 spells it out; a test keeps the two identical, which is also what lets the
    planner use the index).

    >>> open_movement_sql()
    "((kind = 'debit' AND status IN ('pending', 'applied', 'unknown')) OR (kind IN ('credit', \
'rollback') AND status IN ('pending', 'unknown')))"
    """
    by_statuses: dict[tuple[str, ...], list[str]] = {}
    for kind, statuses in OPEN_STATUSES.items():
        # Declaration order of the enum, so the text is stable.
        ordered = tuple(s.value for s in MovementStatus if s in statuses)
        by_statuses.setdefault(ordered, []).append(kind.value)
    terms = []
    for values, kinds in by_statuses.items():
        kind_sql = f"kind = '{kinds[0]}'" if len(kinds) == 1 else f"kind IN ({_sql_list(kinds)})"
        terms.append(f"({kind_sql} AND status IN ({_sql_list(values)}))")
    return f"({' OR '.join(terms)})"


OPEN_MOVEMENT = open_movement_sql()
"""SQL: the row is an open outbox row."""

# -- queries (named here, in one place)

Q_OPERATOR_FOR_KEY = """
SELECT operator_id FROM operator_api_keys
WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())"""
Q_ADD_OPERATOR_KEY = """
INSERT INTO operator_api_keys (key_hash, operator_id, label) VALUES ($1, $2, $3)
ON CONFLICT (key_hash) DO UPDATE SET label = EXCLUDED.label"""
Q_FIND_SESSION = """
SELECT session_id, player_key, operator_id, brand_id, player_id, currency, expires_at, nickname,
       (SELECT min(f.created_at) FROM sessions f
        WHERE f.player_key = s.player_key AND f.session_id = s.session_id) AS started_at,
       reality_check_s, language
FROM sessions s WHERE player_key = $1 AND token_hash = $2"""
Q_INSERT_SESSION = """
INSERT INTO sessions (player_key, token_hash, session_id, operator_id, brand_id, player_id,
                      currency, expires_at, nickname, reality_check_s, created_at, language)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULLIF($10, 0), COALESCE($11, now()),
        NULLIF($12, ''))"""
# What a jurisdiction's rules read before a new round (rgs.service.model.PlayerPace): the
# player's last round start and unfinished rounds (solo and table) across the operator, and
# the session's last step of play and reality-check acknowledgement. $3: a table round the
# call is betting on (the player's other bets in it are the same game).
Q_PLAYER_PACE = """
SELECT (SELECT max(created_at) FROM rounds WHERE player_key = $1) AS last_round_start,
       -- the deal of the last table round the player had a stake in
       (SELECT max(t.created_at) FROM wallet_transactions w
        JOIN table_rounds t ON t.round_id = w.round_id AND t.status <> 'not_dealt'
        WHERE w.player_key = $1 AND w.kind = 'debit' AND w.status IN ('booked', 'applied')
          AND w.created_at > clock_timestamp() - interval '1 day') AS last_table_start,
       (SELECT count(*) FROM rounds WHERE player_key = $1
          AND status IN ('insurance', 'player_turn'))
       -- and the table rounds the player has a stake in that have not ended (but $3's)
       + (SELECT count(DISTINCT w.round_id) FROM wallet_transactions w
          WHERE w.player_key = $1 AND w.kind = 'debit' AND w.round_id <> $3
            AND w.status IN ('pending', 'applied', 'booked', 'unknown')
            AND w.created_at > clock_timestamp() - interval '1 day'
            AND NOT EXISTS (SELECT 1 FROM rounds r
                            WHERE r.player_key = $1 AND r.round_id = w.round_id)
            AND NOT EXISTS (SELECT 1 FROM table_rounds t WHERE t.round_id = w.round_id
                            AND t.status IN ('settled', 'voided', 'not_dealt'))) AS open_rounds,
       GREATEST((SELECT max(updated_at) FROM rounds WHERE player_key = $1 AND session_id = $2),
                (SELECT max(created_at) FROM wallet_transactions
                 WHERE player_key = $1 AND session_id = $2)) AS last_play,
       (SELECT max(reality_checked_at) FROM sessions
        WHERE player_key = $1 AND session_id = $2) AS reality_checked_at"""
Q_ACK_REALITY_CHECK = """
UPDATE sessions SET reality_checked_at = $3 WHERE player_key = $1 AND session_id = $2"""
# A session's position: every stake booked (a debit rolled back, refused or in doubt is not
# one) and every win owed (a credit row is written once the round is settled).
Q_SESSION_POSITION = """
SELECT COALESCE(sum(amount) FILTER (WHERE kind = 'debit' AND status IN ('booked', 'applied')),
                0)::bigint AS staked,
       COALESCE(sum(amount) FILTER (WHERE kind = 'credit'), 0)::bigint AS paid
FROM wallet_transactions WHERE player_key = $1 AND session_id = $2 AND round_id <> $3"""
# A round's header and, in the same row, its events as a JSON array of [kind, payload] pairs
# and its free bet's use ([grant, value, seat] or NULL), so reading a round is one round trip.
_ROUND_COLUMNS = """round_id, player_key, session_id, operator_id, brand_id, player_id, currency,
variant, seq, status, forced_cards, total_staked, total_paid, created_at, finished_at, updated_at,
options::text AS options, channel,
(SELECT row_to_json(f)::text FROM round_seeds f
  WHERE f.player_key = rounds.player_key AND f.round_id = rounds.round_id) AS fair,
(SELECT json_build_array(u.grant_id, u.value, u.seat)::text FROM free_bet_uses u
  WHERE u.player_key = rounds.player_key AND u.round_id = rounds.round_id) AS free_bet,
(SELECT coalesce(json_agg(json_build_array(e.kind, e.payload) ORDER BY e.event_no), '[]')::text
   FROM round_events e
  WHERE e.player_key = rounds.player_key AND e.round_id = rounds.round_id) AS events"""
Q_GET_ROUND = f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE player_key = $1 AND round_id = $2"
Q_ACTIVE_ROUND = (f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE player_key = $1 "
                  "AND brand_id = $2 AND currency = $3 "
                  "AND status IN ('insurance', 'player_turn')")
Q_LIST_ROUNDS = f"""
SELECT {_ROUND_COLUMNS} FROM rounds
WHERE player_key = $1 AND brand_id = $2
  AND ($3::timestamptz IS NULL OR (created_at, round_id) < ($3::timestamptz, $4::text))
ORDER BY created_at DESC, round_id DESC LIMIT $5"""
_ON_ROUND_CONFLICT = """ON CONFLICT (player_key, round_id) DO UPDATE SET
    seq = EXCLUDED.seq, status = EXCLUDED.status, total_staked = EXCLUDED.total_staked,
    total_paid = EXCLUDED.total_paid, updated_at = clock_timestamp(),
    finished_at = COALESCE(rounds.finished_at, EXCLUDED.finished_at)"""
Q_FIND_REQUEST = """
SELECT request_id, method, request_hash, response, scope FROM idempotency_records
WHERE player_key = $1 AND scope = $3 AND request_id = $2"""
Q_INSERT_REQUEST = """
INSERT INTO idempotency_records (player_key, request_id, method, request_hash, response, scope)
VALUES ($1, $2, $3, $4, $5, $6)"""
# Single writes outside a transaction carry the fence in the same statement (the count of
# lease rows says whether the write was made).
Q_UPDATE_RESPONSE = f"""
WITH lease AS ({fence(5, 6)}),
     w AS (UPDATE idempotency_records SET response = $3, updated_at = now()
           WHERE player_key = $1 AND scope = $4 AND request_id = $2
             AND EXISTS (SELECT FROM lease))
SELECT count(*) FROM lease"""
# A credit is promotional when its round staked a free bet (free_bet_uses, migration 0140, and
# free_bet_table_uses, 0150): read,
# never written, so every retry of the credit repeats the mark of its first call.
_PROMOTIONAL = """(kind = 'credit' AND (EXISTS (SELECT FROM free_bet_uses u
    WHERE u.player_key = {t}.player_key AND u.round_id = {t}.round_id)
    OR EXISTS (SELECT FROM free_bet_table_uses u
    WHERE u.player_key = {t}.player_key AND u.round_id = {t}.round_id)))"""
#: The mark of rows aliased ``{t}`` (the shared tables' reads use it too).
PROMOTIONAL = _PROMOTIONAL
MOVEMENT_COLUMNS = f"""transaction_id, round_id, kind, amount, status, balance_after,
debit_transaction_id, session_id, currency, attempts, last_error, brand_id, created_at,
{_PROMOTIONAL.format(t="wallet_transactions")} AS promotional,
coalesce(wallet_reference, '') AS wallet_reference"""
Q_ROUND_MOVEMENTS = f"""
SELECT {MOVEMENT_COLUMNS} FROM wallet_transactions
WHERE player_key = $1 AND round_id = $2 ORDER BY created_at, transaction_id"""
Q_OPEN_MOVEMENTS = f"""
SELECT {MOVEMENT_COLUMNS} FROM wallet_transactions
WHERE player_key = $1 AND {OPEN_MOVEMENT}
ORDER BY created_at, transaction_id"""
# What a call reads first, in one statement (one snapshot): the request id's record ($2, scope
# $3), the open outbox rows, the round (by id $4, or the unfinished one in brand $4 and currency
# $5) with its events, and the round's movements. Movements travel as JSON arrays (the 14th
# element the wallet's own reference).
MOVEMENT_JSON = """coalesce(json_agg(json_build_array(transaction_id, round_id, kind, amount,
status, balance_after, debit_transaction_id, session_id, currency, attempts, last_error, brand_id,
created_at, coalesce(wallet_reference, '')) ORDER BY created_at, transaction_id), '[]')::text"""
# A solo call's rows also carry the promotional mark (a 15th element).
SOLO_MOVEMENT_JSON = """coalesce(json_agg(json_build_array(transaction_id, round_id, kind, amount,
status, balance_after, debit_transaction_id, session_id, currency, attempts, last_error, brand_id,
created_at, coalesce(wallet_reference, ''), {promotional}) ORDER BY created_at, transaction_id),
'[]')::text"""
_CALL_STATE = f"""
SELECT rq.method AS rq_method, rq.request_hash AS rq_hash, rq.response AS rq_response,
       (SELECT {SOLO_MOVEMENT_JSON.format(promotional=_PROMOTIONAL.format(t="o"))}
          FROM wallet_transactions o
         WHERE o.player_key = $1 AND {OPEN_MOVEMENT}) AS open_rows,
       (SELECT {SOLO_MOVEMENT_JSON.format(promotional=_PROMOTIONAL.format(t="w"))}
          FROM wallet_transactions w
         WHERE w.player_key = $1 AND w.round_id = r.round_id) AS round_rows,
       r.*
FROM (SELECT) AS one
LEFT JOIN idempotency_records rq ON rq.player_key = $1 AND rq.scope = $3 AND rq.request_id = $2
LEFT JOIN LATERAL ({{round}}) AS r ON true"""
# A Deal's first read also brings the session's next fair seed ($6: the session).
_CALL_STATE_DEAL = _CALL_STATE.replace(
    "FROM (SELECT) AS one", """, ns.server_seed AS ns_server_seed, ns.commitment AS ns_commitment,
       ns.round_number AS ns_round_number
FROM (SELECT) AS one
LEFT JOIN fair_next_seeds ns ON ns.player_key = $1 AND ns.session_id = $6""")
Q_CALL_STATE_NO_ROUND = _CALL_STATE.format(
    round="SELECT NULL::text AS round_id WHERE false")
Q_CALL_STATE_BY_ID = _CALL_STATE.format(
    round=f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE player_key = $1 AND round_id = $4")
Q_CALL_STATE_ACTIVE = _CALL_STATE.format(
    round=f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE player_key = $1 AND brand_id = $4 "
          "AND currency = $5 AND status IN ('insurance', 'player_turn')")
Q_CALL_STATE_DEAL = _CALL_STATE_DEAL.format(
    round=f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE player_key = $1 AND brand_id = $4 "
          "AND currency = $5 AND status IN ('insurance', 'player_turn')")


def _with_lease(query: str, params: int) -> dict[bool | None, str]:
    """A call state's read (key None) and the same read with the player's lease taken in the
    same statement, without (False) and with (True) the advisory lock of session mode
    (:func:`~rgs.journal.leases.take_player_then`; the lease's parameters follow the read's
    ``params``)."""
    return {None: query, False: take_player_then(query, params + 1, advisory=False),
            True: take_player_then(query, params + 1, advisory=True)}


Q_CALL_READ_NO_ROUND = _with_lease(Q_CALL_STATE_NO_ROUND, 3)
Q_CALL_READ_BY_ID = _with_lease(Q_CALL_STATE_BY_ID, 4)
Q_CALL_READ_ACTIVE = _with_lease(Q_CALL_STATE_ACTIVE, 5)
Q_CALL_READ_DEAL = _with_lease(Q_CALL_STATE_DEAL, 6)


def call_query(key: str, read: CallRead) -> tuple[dict[bool | None, str], tuple[Any, ...]]:
    """The variant of the call state's read for ``read``, by whether the lease is taken with it
    (None: it is not; True/False: with or without the advisory lock), and its arguments."""
    head = (key, read.request_id, read.scope.value)
    if read.seed_of is not None and read.active_in is not None:
        return Q_CALL_READ_DEAL, (*head, *read.active_in, read.seed_of)
    if read.round_id is not None:
        return Q_CALL_READ_BY_ID, (*head, read.round_id)
    if read.active_in is not None:
        return Q_CALL_READ_ACTIVE, (*head, *read.active_in)
    return Q_CALL_READ_NO_ROUND, head


_INSERT_MOVEMENT = """
INSERT INTO wallet_transactions (player_key, transaction_id, round_id, kind, amount, status,
                                 balance_after, debit_transaction_id, session_id, currency,
                                 brand_id)"""
Q_RECORD_MOVEMENT = f"""
WITH lease AS ({fence(12, 13)}),
     w AS ({_INSERT_MOVEMENT}
           SELECT $1, $2, $3, $4, $5::bigint, $6, $7::bigint, $8, $9, $10, $11 FROM lease
           ON CONFLICT (player_key, transaction_id) DO NOTHING)
SELECT count(*) FROM lease"""
# The same write as a call's first, taking the lease back where this replica left it
# (:func:`~rgs.journal.leases.resume`; $14 the holder, $15/$16 the call's request id and scope).
Q_RECORD_MOVEMENT_RESUMED = Q_RECORD_MOVEMENT.replace(f"({fence(12, 13)})",
                                                      f"({resume(12, 13, 14, 15, 16)})")
# A call's first write when it is not one of the above: the lease taken back ($2 the epoch it
# was given back at, $3 time to live, $4 holder, $5/$6 the call's request id and scope).
Q_RESUME = f"WITH lease AS ({resume(2, 3, 4, 5, 6)}) SELECT count(*) FROM lease"
# The one home of "a rollback the wallet applied cancels its debit", for a statement whose CTE
# `w` just recorded outbox rows (RETURNING player_key, kind, debit_transaction_id, status): the
# debits of its applied rollbacks are marked rolled back by the same statement, so no crash or
# lost connection between two writes can leave a debit booked whose stake the wallet gave back
# (a voided round's booked debit is no open row: nothing would revisit it).
ROLLED_BACK_DEBIT = f"""
UPDATE wallet_transactions d SET status = '{MovementStatus.ROLLED_BACK}',
       updated_at = clock_timestamp()
  FROM w
 WHERE w.kind = 'rollback' AND w.status = '{MovementStatus.APPLIED}'
   AND d.player_key = w.player_key AND d.transaction_id = w.debit_transaction_id"""
Q_SETTLE_MOVEMENT = f"""
WITH lease AS ({fence(6, 7)}),
     w AS (UPDATE wallet_transactions
              SET status = $3, balance_after = COALESCE($4::bigint, balance_after),
                  wallet_reference = COALESCE(NULLIF($8::text, ''), wallet_reference),
                  updated_at = clock_timestamp(),
                  attempts = attempts + CASE WHEN $5::text IS NULL THEN 0 ELSE 1 END,
                  last_error = COALESCE($5::text, last_error)
            WHERE player_key = $1 AND transaction_id = $2 AND EXISTS (SELECT FROM lease)
            RETURNING player_key, kind, debit_transaction_id, status),
     rb AS ({ROLLED_BACK_DEBIT})
SELECT count(*) FROM lease"""
# Wins' wallet answers recorded after their calls gave the player back
# (rgs.journal.late_answers), one element per answer: the player ($1), the credit ($2), its
# status ($3), the balance the wallet reported ($4; NULL keeps), its own reference ($5; ''
# keeps), the error ($6; '' when it answered), the call's request id ($7) and scope ($8) and
# its paid answer ($9; NULL keeps the stored one). An answer is recorded only while its row is
# still open (whoever recorded one first, the player's next call or the reconciler, wins), and
# the call's answer is replaced only with it. No lease: a wallet's answer to a transaction id
# is the same whoever sends it.
Q_LATE_ANSWERS = f"""
WITH a AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[],
                                $6::text[], $7::text[], $8::text[], $9::text[])
                 AS a(player_key, transaction_id, status, balance_after, wallet_reference,
                      error, request_id, scope, response)),
     w AS (UPDATE wallet_transactions t
              SET status = a.status, balance_after = COALESCE(a.balance_after, t.balance_after),
                  wallet_reference = COALESCE(NULLIF(a.wallet_reference, ''),
                                              t.wallet_reference),
                  updated_at = clock_timestamp(), attempts = t.attempts + 1,
                  last_error = a.error
             FROM a
            WHERE t.player_key = a.player_key AND t.transaction_id = a.transaction_id
              AND t.kind = 'credit'
              AND t.status IN ('{MovementStatus.PENDING}', '{MovementStatus.UNKNOWN}')
            RETURNING a.player_key, a.request_id, a.scope, a.response)
UPDATE idempotency_records r SET response = w.response, updated_at = now()
  FROM w
 WHERE w.response IS NOT NULL AND r.player_key = w.player_key AND r.scope = w.scope
   AND r.request_id = w.request_id"""
# A step's commit in one statement (one implicit transaction): the fence, then every write
# gated on it, so a call that lost its lease writes nothing. $1-$14 the round's header, $15 the
# first new event's number, $16/$17 the new events' kinds and payloads, $18-$22 the idempotency
# record (none when $18 is NULL), $23-$32 the outbox rows to write (arrays, one element per
# row), $33 the debits to book, $34/$35 the lease's epoch and time to live, $36-$41 a fair
# round's seeds (none when $36 is NULL: the round's own server seed, commitment, client seed,
# round number, decks, next commitment) and $42/$43 the session's next seed that replaces the
# used one (its server seed and round number; its commitment is $41), $44 the balances the
# wallet reported for the debits of $33 (one element per debit; NULL: already recorded), $45 the
# wallet's own references for them (one element per debit; '' or NULL: keep the stored one), $46
# the channel the round was dealt through (written by its first step only; NULL: none). A debit
# whose balance is given was applied in this call and not recorded yet: it goes from pending to
# booked here. The sub-statements touch different rows, so none needs to see another's work.
_COMMIT_STEP = f"""
WITH lease AS ({{lease}}),
     hdr AS (INSERT INTO rounds (player_key, round_id, session_id, operator_id, brand_id,
                                 player_id, currency, variant, seq, status, forced_cards,
                                 total_staked, total_paid, finished_at, options, channel)
             SELECT $1, $2, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text,
                    $9::integer, $10::text, $11::text[], $12::bigint, $13::bigint,
                    CASE WHEN $10::text IN ('settled', 'voided') THEN clock_timestamp() END,
                    $14::jsonb, $46::text
               FROM lease
             {_ON_ROUND_CONFLICT}),
     ev AS (INSERT INTO round_events (player_key, round_id, event_no, kind, payload)
            SELECT $1, $2, $15::integer + e.n - 1, e.kind, e.payload::jsonb
              FROM lease, unnest($16::text[], $17::text[]) WITH ORDINALITY AS e(kind, payload, n)),
     req AS (INSERT INTO idempotency_records (player_key, request_id, method, request_hash,
                                              response, scope)
             SELECT $1, $18::text, $19::text, $20::text, $21::text, $22::text FROM lease
              WHERE $18::text IS NOT NULL),
     mv AS ({_INSERT_MOVEMENT}
            SELECT $1, m.transaction_id, m.round_id, m.kind, m.amount, m.status,
                   m.balance_after, m.debit_transaction_id, m.session_id, m.currency, m.brand_id
              FROM lease, unnest($23::text[], $24::text[], $25::text[], $26::bigint[],
                                 $27::text[], $28::bigint[], $29::text[], $30::text[],
                                 $31::text[], $32::text[])
                   AS m(transaction_id, round_id, kind, amount, status, balance_after,
                        debit_transaction_id, session_id, currency, brand_id)
            ON CONFLICT (player_key, transaction_id) DO NOTHING),
     bk AS (UPDATE wallet_transactions w
               SET status = '{MovementStatus.BOOKED}', updated_at = clock_timestamp(),
                   balance_after = COALESCE(b.balance_after, w.balance_after),
                   wallet_reference = COALESCE(NULLIF(b.wallet_reference, ''),
                                               w.wallet_reference),
                   attempts = w.attempts + CASE WHEN b.balance_after IS NULL THEN 0 ELSE 1 END,
                   last_error = CASE WHEN b.balance_after IS NULL THEN w.last_error ELSE '' END
              FROM unnest($33::text[], $44::bigint[], $45::text[])
                   AS b(transaction_id, balance_after, wallet_reference)
             WHERE w.player_key = $1 AND w.transaction_id = b.transaction_id
               AND (w.status = '{MovementStatus.APPLIED}'
                    OR (w.status = '{MovementStatus.PENDING}' AND b.balance_after IS NOT NULL))
               AND EXISTS (SELECT FROM lease)),
     sd AS (INSERT INTO round_seeds (player_key, round_id, server_seed, commitment, client_seed,
                                     round_number, decks, next_commitment)
            SELECT $1, $2, $36::text, $37::text, $38::text, $39::bigint, $40::integer, $41::text
              FROM lease WHERE $36::text IS NOT NULL),
     ns AS (INSERT INTO fair_next_seeds (player_key, session_id, server_seed, commitment,
                                         round_number)
            SELECT $1, $3, $42::text, $41::text, $43::bigint FROM lease
             WHERE $36::text IS NOT NULL
            ON CONFLICT (player_key, session_id) DO UPDATE SET
                server_seed = EXCLUDED.server_seed, commitment = EXCLUDED.commitment,
                round_number = EXCLUDED.round_number, updated_at = clock_timestamp())
SELECT (SELECT count(*) FROM lease){{unlock}}"""
Q_COMMIT_STEP = _COMMIT_STEP.format(lease=fence(34, 35), unlock="")
# A call's last write: the lease given back by the same statement ($35 unused), and in session
# mode the advisory lock too ($47: its first key).
Q_COMMIT_LAST_STEP = _COMMIT_STEP.format(lease=fence(34, 35, release=True),
                                         unlock=", $35::interval IS NULL")
Q_COMMIT_LAST_STEP_UNLOCK = _COMMIT_STEP.format(
    lease=fence(34, 35, release=True),
    unlock=", $35::interval IS NULL, pg_advisory_unlock($47, hashtext($1))")
# A step's commit as the call's first write, the lease taken back where this replica left it
# ($47 the holder; the request id $18 must have no record yet): kept, or (LAST) given back
# again by the same statement.
Q_COMMIT_STEP_RESUMED = _COMMIT_STEP.format(lease=resume(34, 35, 47, 18, 22), unlock="")
Q_COMMIT_LAST_STEP_RESUMED = _COMMIT_STEP.format(
    lease=resume(34, 35, 47, 18, 22, release=True),
    unlock=", $35::interval IS NULL, $47::text IS NULL")
Q_ABANDONED_ROUNDS = f"""
SELECT {_ROUND_COLUMNS} FROM rounds
WHERE status IN ('insurance', 'player_turn') AND updated_at < $1
  AND ($3::text IS NULL OR operator_id = $3)
ORDER BY updated_at LIMIT $2"""
Q_PLAYERS_WITH_OPEN = f"""
SELECT DISTINCT player_key FROM wallet_transactions
WHERE {OPEN_MOVEMENT}
  AND updated_at < $1::timestamptz - LEAST(
        $2::interval * power(2, LEAST(GREATEST(attempts - 1, 0), 20)),
        GREATEST($3::interval, $2::interval))
LIMIT $4"""
Q_OUTBOX_BACKLOG = f"""
SELECT count(*) AS open_rows,
       coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0) AS oldest_age_s
FROM wallet_transactions WHERE {OPEN_MOVEMENT}"""
Q_ACTIVE_SESSIONS = "SELECT count(*) FROM sessions WHERE expires_at > now()"
# Provably fair rounds (migration 0060).
Q_NEXT_SEED = """
SELECT session_id, server_seed, commitment, round_number FROM fair_next_seeds
WHERE player_key = $1 AND session_id = $2"""
Q_SAVE_NEXT_SEED = f"""
WITH lease AS ({fence(6, 7)}),
     w AS (INSERT INTO fair_next_seeds (player_key, session_id, server_seed, commitment,
                                        round_number)
           SELECT $1, $2, $3, $4, $5 FROM lease
           ON CONFLICT (player_key, session_id) DO NOTHING)
SELECT count(*) FROM lease"""
