"""The :class:`~rgs.wallet.port.Wallet` the use cases see: every call goes to the wallet of the
operator it is for (``Party.operator_id``), never to another operator's."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rgs.wallet.port import MoneyCall, MoneyResult, Party, Wallet, WalletNotCalled


class WalletRouter:
    """One wallet per operator id."""

    def __init__(self, wallets: Mapping[str, Wallet]) -> None:
        self._wallets = MappingProxyType(dict(wallets))

    def _of(self, party: Party) -> Wallet:
        wallet = self._wallets.get(party.operator_id)
        if wallet is None:
            # A round of an operator no longer in the platform file: nothing can be sent.
            raise WalletNotCalled(f"no wallet is configured for operator "
                                  f"{party.operator_id[:64]!r}")
        return wallet

    async def balance(self, party: Party) -> int:
        """See :meth:`Wallet.balance`."""
        return await self._of(party).balance(party)

    async def move(self, call: MoneyCall) -> MoneyResult:
        """See :meth:`Wallet.move`."""
        return await self._of(call.party).move(call)
