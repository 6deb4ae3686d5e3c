"""``rgs play``: play blackjack on a terminal against a running RGS (the sandbox by default)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from pathlib import Path

import grpc

from rgs.cli.common import UserError
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc as bj_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc as op_grpc
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc as tb_grpc
from rgs.locales import LANGUAGES
from rgs.terminal import i18n, render
from rgs.terminal.play import Player, PlayError, refusal_text
from rgs.terminal.table import TablePlayer

SANDBOX_ADDRESS = "127.0.0.1:50051"
SANDBOX_OPERATOR_KEY = "rgs-dev-operator-key"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``play`` command."""
    p = sub.add_parser("play", help="play rounds on a terminal against a running RGS",
                       description="Plays blackjack against a running RGS as a person would: "
                       "shows the table, offers the allowed actions, shows the balance. "
                       "Defaults fit `rgs sandbox`.")
    game = p.add_mutually_exclusive_group(required=True)
    game.add_argument("--variant", metavar="V", help="variant id to play alone")
    game.add_argument("--table", nargs="?", const="", metavar="TABLE_ID",
                      help="sit at a shared table (see every seat live); without an id, list "
                      "the tables the brand offers")
    p.add_argument("--address", default=SANDBOX_ADDRESS, help="RGS host:port")
    p.add_argument("--session-token", help="a session token (else one is opened with the "
                   "operator key)")
    p.add_argument("--operator-key", default=SANDBOX_OPERATOR_KEY,
                   help="operator API key used to open a session (sandbox dev key by default)")
    p.add_argument("--brand", default="demo-casino", help="brand id for the session")
    p.add_argument("--player", default="demo-alice", help="player id for the session")
    p.add_argument("--nickname", default="", help="the name other players see at a table "
                   "(1-20 letters, digits, spaces, . _ -; else a pseudonym such as Player 3F2A)")
    p.add_argument("--tls-ca", type=Path, help="CA certificate file: connect with TLS")
    p.add_argument("--ascii", action="store_true", help="plain letters for suits")
    p.add_argument("--lang", choices=LANGUAGES, default=None,
                   help="the language to play in, its words and its way of writing amounts "
                   "(default: the session's launch language, else from "
                   "LC_ALL/LC_MESSAGES/LANG, else en)")
    p.add_argument("--forced-cards", default="", metavar="CARDS",
                   help="comma-separated card codes each deal draws first (at a table: the "
                   "round your Deal Now deals); accepted only by a server in test mode")
    p.set_defaults(func=run)


def _channel(args: argparse.Namespace) -> grpc.aio.Channel:
    if args.tls_ca:
        try:
            creds = grpc.ssl_channel_credentials(args.tls_ca.read_bytes())
        except OSError as exc:
            raise UserError(f"cannot read --tls-ca {args.tls_ca}: {exc}") from None
        return grpc.aio.secure_channel(args.address, creds)
    return grpc.aio.insecure_channel(args.address)


async def _main(args: argparse.Namespace) -> int:
    async with _channel(args) as channel:
        try:
            await asyncio.wait_for(channel.channel_ready(), timeout=5)
        except TimeoutError:
            raise UserError(f"no RGS answers on {args.address}; start one with "
                            "`bash .ci/sandbox` or pass --address") from None
        token = args.session_token
        if not token:
            ops = op_grpc.OperatorServiceStub(channel)
            try:
                made = await ops.CreateSession(
                    op.CreateSessionRequest(request_id=uuid.uuid4().hex, brand_id=args.brand,
                                            player_id=args.player, nickname=args.nickname),
                    metadata=(("authorization", f"Bearer {args.operator_key}"),), timeout=10)
            except grpc.aio.AioRpcError as exc:
                raise UserError(f"could not open a session for {args.player} at {args.brand}: "
                                f"{exc.details()} — check --operator-key/--brand/--player/"
                                "--nickname") from None
            token = made.session_token
        forced = tuple(c.strip().upper() for c in args.forced_cards.split(",") if c.strip())
        ascii_only = args.ascii or not (sys.stdout.encoding or "").lower().startswith("utf")
        if args.table is not None:
            return await _table(args, channel, token, forced, ascii_only)
        stub: bj_grpc.BlackjackServiceAsyncStub = bj_grpc.BlackjackServiceStub(channel)
        try:
            listed = await stub.ListVariants(bj.ListVariantsRequest(),
                                             metadata=(("authorization", f"Bearer {token}"),),
                                             timeout=10)
        except grpc.aio.AioRpcError as exc:
            raise UserError(f"the RGS refused the session: {exc.details()}") from None
        _speak(args, listed.language)
        by_id = {v.id: v for v in listed.variants}
        if args.variant not in by_id:
            raise UserError(i18n.say("variant_unknown", variant=repr(args.variant),
                                     variants=", ".join(by_id) or i18n.say("tnone")))
        last = next((r for r in listed.last_rounds if r.variant_id == args.variant), None)
        player = Player(stub=stub, token=token, variant=by_id[args.variant],
                        currency=listed.currency, ask=input, say=print,
                        forced_cards=forced,
                        last_stake=last.boxes[0].stake if last and last.boxes else 0,
                        last_win=max(0, last.total_paid - last.total_staked) if last else 0,
                        ascii_only=ascii_only)
        try:
            return await player.run()
        except PlayError as exc:
            raise UserError(refusal_text(exc)) from None


async def _table(args: argparse.Namespace, channel: grpc.aio.Channel, token: str,
                 forced: tuple[str, ...], ascii_only: bool) -> int:
    """List the brand's tables, or sit at one."""
    stub: tb_grpc.TableServiceAsyncStub = tb_grpc.TableServiceStub(channel)
    md = (("authorization", f"Bearer {token}"),)
    try:
        listed = await stub.ListTables(tb.ListTablesRequest(), metadata=md, timeout=10)
    except grpc.aio.AioRpcError as exc:
        raise UserError(f"the RGS refused the session: {exc.details()}") from None
    _speak(args, listed.language)
    by_id = {t.table_id: t for t in listed.tables}
    if not args.table:
        if not by_id:
            print(i18n.say("tables_none", brand=args.brand))
        for t in listed.tables:
            print(i18n.say("table_line", id=t.table_id, variant=t.variant_id, seats=t.seats,
                           currency=t.currency, min=render.money(t.main_min, t.currency),
                           max=render.money(t.main_max, t.currency)))
        if by_id:
            print(i18n.say("tables_hint"))
        return 0
    if args.table not in by_id:
        raise UserError(i18n.say("ttable_unknown", table=repr(args.table), brand=args.brand,
                                 tables=", ".join(by_id) or i18n.say("tnone")))
    game: bj_grpc.BlackjackServiceAsyncStub = bj_grpc.BlackjackServiceStub(channel)

    async def balance() -> int | None:
        try:
            got = await game.GetBalance(bj.GetBalanceRequest(), metadata=md, timeout=5)
        except grpc.aio.AioRpcError:
            return None  # not shown until the wallet answers
        return int(got.balance)

    player = TablePlayer(stub=stub, token=token, table=by_id[args.table], ask=input, say=_say,
                         forced_cards=forced, ascii_only=ascii_only, balance_of=balance)
    return await player.run()


def _speak(args: argparse.Namespace, session_language: str) -> None:
    """Speak the session's launch language unless ``--lang`` chose one."""
    if args.lang is None and session_language in LANGUAGES:
        i18n.use(session_language)


def _say(text: str) -> None:
    print(text, flush=True)


def run(args: argparse.Namespace) -> int:
    """Run the terminal client."""
    i18n.use(args.lang or i18n.language_from_env(os.environ))
    return asyncio.run(_main(args))
