"""The PAR sheets' figures the RTP monitor compares rounds with: read from the shipped sheets,
and cached by whoever owns a :class:`rgs.rtp.sheets.ParSheets` (the worker), not by the
module."""

from __future__ import annotations

from rgs.rtp.sheets import ParSheets, par_figures
from rgs.rtp.worker import RtpWorker
from rgs.variants import VARIANTS

VIP = VARIANTS["vip-platinum"]


def test_an_owner_reads_each_sheet_once_and_keeps_it_to_itself() -> None:
    mine, theirs = ParSheets(), ParSheets()
    first = mine.figures(VIP)
    assert mine.figures(VIP) is first
    assert first == par_figures(VIP)
    assert theirs.figures(VIP) is not first


def test_each_worker_owns_its_sheets() -> None:
    assert RtpWorker(None).sheets is not RtpWorker(None).sheets
