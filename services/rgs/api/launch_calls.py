"""The launch and demo-play calls as the edges call them: CreateLaunch (operator, native gRPC),
RedeemLaunch and TopUpDemoBalance (player, native gRPC and the browser edge)."""

from __future__ import annotations

from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp

from rgs.api.fields import check_strings
from rgs.api.origins import check_origin
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service.demo import DemoWallet
from rgs.service.errors import Unavailable
from rgs.service.launch import Launch, Launches, LaunchRequest
from rgs.service.model import Brand, Session


def _ts(when: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(when)
    return ts


class LaunchCalls:
    """What the launch calls need: the launches and the demo wallet (for top-ups)."""

    def __init__(self, launches: Launches, demo: DemoWallet,
                 brands: dict[str, Brand]) -> None:
        self.launches = launches
        self.demo = demo
        self._brands = brands

    async def create(self, operator_id: str, request: op.CreateLaunchRequest
                     ) -> op.CreateLaunchResponse:
        """CreateLaunch for an authenticated operator."""
        url, expires, _ = await self.launches.create(operator_id, LaunchRequest(
            brand_id=request.brand_id, player_id=request.player_id, currency=request.currency,
            variant_id=request.variant_id, table_id=request.table_id,
            language=request.language, lobby_url=request.lobby_url,
            cashier_url=request.cashier_url, device=request.device, demo=request.demo,
            nickname=request.nickname, reality_check_s=request.reality_check_interval_s))
        return op.CreateLaunchResponse(url=url, expires_at=_ts(expires))

    async def redeem(self, origin: str | None, request: bj.RedeemLaunchRequest
                     ) -> bj.RedeemLaunchResponse:
        """RedeemLaunch: the code's session, once. A browser page on an origin the brand does
        not allow gets ORIGIN_NOT_ALLOWED before the code is spent (it stays usable)."""
        check_strings(request)

        def allowed(launch: Launch) -> None:
            if origin is not None:
                check_origin(self._brands[launch.brand_id], origin)

        launch, new = await self.launches.redeem(request.launch_code, allowed)
        return bj.RedeemLaunchResponse(
            session_token=new.token, session_id=new.session.session_id,
            expires_at=_ts(new.session.expires_at), currency=new.session.currency,
            balance=new.balance, next_commitment=new.next_commitment,
            brand_id=launch.brand_id, variant_id=launch.variant_id, table_id=launch.table_id,
            language=launch.language, lobby_url=launch.lobby_url,
            cashier_url=launch.cashier_url, device=launch.device, demo=launch.demo)

    async def top_up(self, session: Session) -> bj.TopUpDemoBalanceResponse:
        """TopUpDemoBalance for the caller's session."""
        balance = await self.demo.top_up(session)
        return bj.TopUpDemoBalanceResponse(balance=balance, currency=session.currency)


def served(launch: LaunchCalls | None) -> LaunchCalls:
    """The launch calls, or UNAVAILABLE where this server does not serve them."""
    if launch is None:
        raise Unavailable("launches are not served by this server", reason="LAUNCH_NOT_SERVED")
    return launch
