"""The browser edge's round replay: the page (``/replay``, its script) and the endpoint it
reads the round from (``POST /replay/round`` with ``{"token": ...}``, JSON).

The page takes the link's capability from its URL fragment (never sent to a server, never in a
Referer) and posts it here; the round comes back as its operator's recall shows it (the
RoundRecord of GetPlayerRound, in protobuf JSON: a table round's other players by display name
only) with the variant's rules. A link altered or signed with another secret answers 403
REPLAY_LINK_INVALID, an expired one 403 REPLAY_LINK_EXPIRED, a round gone 404, each as
``{"code", "reason", "message"}`` the page shows in words.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf.json_format import MessageToDict

from rgs.api.converters import variant_to_proto
from rgs.api.errors import classify
from rgs.api.table_recall import recall_to_proto
from rgs.engine.rules import TableLimits
from rgs.service.model import Brand
from rgs.service.replay import RoundReplays
from rgs.variants import VARIANTS
from rgs.variants.options import effective_rules

log = logging.getLogger(__name__)

#: The replay page's files: URL path → (file name, content type).
REPLAY_FILES: Mapping[str, tuple[str, str]] = {
    "/replay": ("replay.html", "text/html; charset=utf-8"),
    "/replay.html": ("replay.html", "text/html; charset=utf-8"),
    "/replay.js": ("replay.js", "text/javascript; charset=utf-8"),
}
ROUND_PATH = "/replay/round"
#: Largest request body the endpoint reads (a token is well under 1 KiB).
MAX_BODY = 4096
#: HTTP status per gRPC code name of a refusal.
_HTTP = {"INVALID_ARGUMENT": 400, "PERMISSION_DENIED": 403, "NOT_FOUND": 404,
         "UNAUTHENTICATED": 401}


class ReplayEndpoint:
    """Reads a replay link's round for the page."""

    def __init__(self, replays: RoundReplays, brands: Iterable[Brand]) -> None:
        self._replays = replays
        self._brands = {(b.operator_id, b.id): b for b in brands}

    def _rules(self, operator_id: str, brand_id: str, variant_id: str, currency: str
               ) -> dict[str, Any] | None:
        brand = self._brands.get((operator_id, brand_id))
        if brand is None or variant_id not in VARIANTS:
            return None
        rules = effective_rules(VARIANTS[variant_id], brand.variant_options(variant_id))
        limits = brand.limits.get(currency, {}).get(variant_id)
        shown = MessageToDict(variant_to_proto(rules, limits or TableLimits()))
        if limits is None:  # a table's limits are the table's, not the brand's
            shown.pop("limits", None)
        return shown

    async def answer(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON object) for a request body."""
        try:
            token = json.loads(body.decode("utf-8"))["token"]
            if not isinstance(token, str):
                raise TypeError("token")
        except (ValueError, KeyError, TypeError):
            return 400, {"code": "invalid_argument", "reason": "INVALID_REQUEST",
                         "message": 'send {"token": "<the part of the link after #>"}'}
        try:
            cap, rec = await self._replays.open(token)
        except Exception as exc:  # every refusal is a documented reason
            code, reason, message = classify(exc)
            if reason == "SERVER_ERROR":
                log.exception("unexpected error reading a replay")
            return _HTTP.get(code.name, 503), {"code": code.name.lower(), "reason": reason,
                                               "message": message}
        record = recall_to_proto(rec)
        return 200, {
            "round": MessageToDict(record),
            "rules": self._rules(cap.operator_id, record.brand_id, record.variant_id,
                                 record.currency),
            "expiresAt": cap.expires_at.isoformat().replace("+00:00", "Z")}
