"""A lobby's catalogue: the ``lobby`` entry of each variant ListVariants lists and each table
ListTables lists (display name, a line about it, the brand's RTP, limits per currency,
features, the thumbnail's path on the browser edge). The words are in the session's language
(its launch's; English for a session not launched)."""

from __future__ import annotations

from rgs.api.converters import limits_to_proto
from rgs.engine import RuleSet, TableLimits
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.service.model import Brand
from rgs.service.tables.model import TableConfig
from rgs.variants import VARIANTS
from rgs.variants.catalogue import description, display_name, rtp_percent, table_name, thumbnail_url


def _side_bets(rules: RuleSet) -> list[bj.SideBetKind.ValueType]:
    kinds = []
    if rules.twenty_plus is not None:
        kinds.append(bj.SIDE_BET_KIND_TWENTY_PLUS)
    if rules.perfect_pairs is not None:
        kinds.append(bj.SIDE_BET_KIND_PERFECT_PAIRS)
    if rules.twenty_one_plus_three is not None:
        kinds.append(bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE)
    return kinds


def _limits(limits: dict[str, TableLimits]) -> list[bj.CurrencyLimits]:
    return [bj.CurrencyLimits(currency=c, limits=limits_to_proto(lim))
            for c, lim in limits.items()]


def variant_entry(brand: Brand, rules: RuleSet, language: str = "") -> bj.LobbyEntry:
    """A solo variant as the brand offers it (``rules``: its effective rules), its words in
    ``language``."""
    per_currency = {c: lim for c in brand.currencies
                    if (lim := brand.limits.get(c, {}).get(rules.id)) is not None}
    return bj.LobbyEntry(
        display_name=display_name(rules.id, language, rules.name),
        description=description(rules.id, language),
        rtp_percent=rtp_percent(rules.id, rules.decks), limits=_limits(per_currency),
        features=bj.LobbyFeatures(side_bets=_side_bets(rules),
                                  cash_out=rules.cash_out is not None),
        thumbnail_url=thumbnail_url(rules.id))


def table_entry(c: TableConfig, seats_free: int, language: str = "") -> bj.LobbyEntry:
    """A shared table, with its seats free now, its words in ``language``."""
    rules = VARIANTS[c.variant]
    return bj.LobbyEntry(
        display_name=table_name(rules.id, c.id, language, rules.name),
        description=description(rules.id, language),
        rtp_percent=rtp_percent(rules.id, rules.decks), limits=_limits({c.currency: c.limits}),
        features=bj.LobbyFeatures(side_bets=_side_bets(rules),
                                  cash_out=rules.cash_out is not None,
                                  bet_behind=rules.bet_behind, seats_free=seats_free,
                                  seats=c.seats),
        thumbnail_url=thumbnail_url(rules.id))
