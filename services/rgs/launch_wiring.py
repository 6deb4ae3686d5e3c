"""Wiring of launches and demo play (:mod:`rgs.service.launch`, :mod:`rgs.service.demo`): their
stores in the journal's database when the journal is PostgreSQL (a small pool of their own),
else in memory, and the demo wallet in front of the operators' wallets."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta

from rgs.api.launch_calls import LaunchCalls
from rgs.config import RgsSettings
from rgs.journal.audit import open_pool
from rgs.journal.launches import PostgresLaunches
from rgs.service.demo import DemoStore, DemoWallet, MemoryDemoStore
from rgs.service.launch import Launches, LaunchStore, MemoryLaunchStore, SessionOpener
from rgs.service.model import Brand
from rgs.service.ports import Clock
from rgs.wallet.port import Wallet


def launch_base_url(settings: RgsSettings) -> str:
    """The reference web table's URL for launch links (see ``RGS_LAUNCH_URL``)."""
    base = settings.launch_url or settings.replay_url
    if base:
        return base.rstrip("/") + "/"
    return f"http://{settings.web_listen or '127.0.0.1:8080'}/"


class LaunchWiring:
    """The stores, made before the wallet is wrapped; the calls, once the back office is."""

    def __init__(self, launches: LaunchStore, demo: DemoStore) -> None:
        self.launch_store = launches
        self.demo_store = demo
        self.demo_wallet: DemoWallet | None = None

    @classmethod
    async def open(cls, database_url: str, *, postgres: bool, pool_mode: str,
                   closers: list[Callable[[], Awaitable[None]]]) -> LaunchWiring:
        """The stores on PostgreSQL (``postgres``) or in memory."""
        if not postgres:
            return cls(MemoryLaunchStore(), MemoryDemoStore())
        pool = await open_pool(database_url, pool_mode=pool_mode)
        closers.append(pool.close)
        store = PostgresLaunches(pool)
        return cls(store, store)

    def wallet(self, real: Wallet, brands: Mapping[str, Brand]) -> DemoWallet:
        """The wallet the use cases see: demo players' calls answered from the demo store."""
        self.demo_wallet = DemoWallet(real, self.demo_store, brands)
        return self.demo_wallet

    def calls(self, settings: RgsSettings, *, brands: Mapping[str, Brand],
              tables: Mapping[str, tuple[str, ...]], sessions: SessionOpener,
              clock: Clock) -> LaunchCalls:
        """CreateLaunch, RedeemLaunch and TopUpDemoBalance."""
        assert self.demo_wallet is not None, "wallet() comes first"
        launches = Launches(store=self.launch_store, brands=brands, tables=tables,
                            sessions=sessions, clock=clock,
                            ttl=timedelta(seconds=settings.launch_ttl_s),
                            default_url=launch_base_url(settings))
        return LaunchCalls(launches, self.demo_wallet, dict(brands))
