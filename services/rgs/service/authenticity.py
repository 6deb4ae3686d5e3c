"""The software authentication's word on new rounds: the one check the Deal and bet paths make.

A replica whose control programs failed their authentication (:mod:`rgs.authenticity`) takes no
new round (N.J.A.C. 13:69O-1.5(d), AGCO 6.1.5): a solo Deal and a bet at a shared table are
refused UNAVAILABLE / ``SOFTWARE_NOT_AUTHENTIC`` before anything moves, while the rounds in
play finish (Act, Settle, insurance, the table's turns are not refused). The refusal holds until
the replica is restarted: a replica that was once found altered is not trusted again by itself.
"""

from __future__ import annotations

from rgs.service.errors import Unavailable

SOFTWARE_NOT_AUTHENTIC = "SOFTWARE_NOT_AUTHENTIC"
"""The reason a new round is refused on a replica whose software failed authentication."""


class SoftwareAuthenticity:
    """Whether this replica may take new rounds, as its software authentication found."""

    def __init__(self) -> None:
        self._failure: str | None = None

    @property
    def failure(self) -> str | None:
        """What failed (a pass/fail report's summary), or None while authentic."""
        return self._failure

    def fail(self, summary: str) -> None:
        """Refuse every new round from now on (the first failure is kept)."""
        if self._failure is None:
            self._failure = summary

    def admit_new_round(self) -> None:
        """Unavailable(SOFTWARE_NOT_AUTHENTIC) once the software failed authentication. The
        message names no file: the player's client needs only to retry (the load balancer
        sends it to a healthy replica); the report is in the logs and the audit trail."""
        if self._failure is not None:
            raise Unavailable("this replica's software failed its authentication and takes no "
                              "new rounds; retry: another replica answers",
                              reason=SOFTWARE_NOT_AUTHENTIC)
