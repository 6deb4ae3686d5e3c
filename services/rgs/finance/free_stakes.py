"""The free-bet stakes the GGR report keeps apart (``free_bet_staked``; docs/backoffice.md):
each free bet used in one operator's committed rounds, named by its round's first movement.

A free stake counts where its round's first movement (by ``created_at``, then transaction id)
counts: that movement's brand, variant, table, UTC day and currency. So a free stake counts once
across any set of reports, and only with a movement the listing also shows. A round that has no
movement yet (a free bet covering every stake, not settled) counts when its first one is written.
A use whose round never committed counts for nothing (the read joins the round); a voided
free-bet round's free bet stays used (docs/freebets.md) and counts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rgs.journal.translate import translated

Q_FREE_STAKES = """
SELECT f.transaction_id, u.value
FROM free_bet_uses u
JOIN rounds r ON r.player_key = u.player_key AND r.round_id = u.round_id
CROSS JOIN LATERAL (SELECT w.transaction_id, w.created_at FROM wallet_transactions w
                     WHERE w.player_key = u.player_key AND w.round_id = u.round_id
                     ORDER BY w.created_at, w.transaction_id LIMIT 1) f
WHERE u.operator_id = $1 AND u.used_at < $3 AND f.created_at >= $2 AND f.created_at < $3
"""


@translated
async def of_window(pool: Any, operator_id: str, start: datetime, end: datetime
                    ) -> dict[str, int]:
    """The free stakes of the operator's rounds whose first movement was written in
    ``[start, end)``: that movement's transaction id → the free stake (minor units)."""
    rows = await pool.fetch(Q_FREE_STAKES, operator_id, start, end)
    return {r["transaction_id"]: int(r["value"]) for r in rows}
