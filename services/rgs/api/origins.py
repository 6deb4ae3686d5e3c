"""Which browser origins may call the RGS: a per-brand setting (``web_origins`` in the platform
file). This is the one home of the rule; the browser edge asks it for preflights, and the use
cases (:mod:`rgs.api.calls`) for every authenticated call.

A preflight (no credentials yet) is answered for an origin that some brand allows; a call is
then served only when the session's own brand allows the origin, so a token of brand A used
from a page only brand B allows is refused (PERMISSION_DENIED, ``ORIGIN_NOT_ALLOWED``).
"""

from __future__ import annotations

from collections.abc import Iterable

from rgs.service.errors import PermissionDenied
from rgs.service.model import Brand

ORIGIN_NOT_ALLOWED = "ORIGIN_NOT_ALLOWED"
"""ErrorInfo reason of a call from an origin the session's brand does not allow."""


def brand_allows(brand: Brand, origin: str) -> bool:
    """Whether ``brand`` lets pages of ``origin`` (scheme://host[:port]) call for its players.

    >>> from rgs.service.model import Brand
    >>> b = Brand(id="b", operator_id="o", currencies=("EUR",), variants=(),
    ...           web_origins=("https://play.example",))
    >>> brand_allows(b, "https://play.example"), brand_allows(b, "https://evil.example")
    (True, False)
    """
    return origin in brand.web_origins or "*" in brand.web_origins


def any_brand_allows(brands: Iterable[Brand], origin: str) -> bool:
    """Whether some brand allows ``origin`` (the answer to a CORS preflight)."""
    return any(brand_allows(b, origin) for b in brands)


def check_origin(brand: Brand, origin: str) -> None:
    """Refuse a call from ``origin`` when the session's ``brand`` does not allow it."""
    if not brand_allows(brand, origin):
        raise PermissionDenied(
            f"this page's origin is not allowed for brand {brand.id}: the operator adds it to "
            "the brand's web_origins in the platform file", reason=ORIGIN_NOT_ALLOWED)
