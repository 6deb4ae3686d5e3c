"""Round replay links (rgs.service.replay): a link reads back as the capability it was issued
for until its time, and any change to it, another secret or its time past refuses it with its
reason; the secret never shows in a repr; the settings choose the secret (none in production
without one)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rgs.service.errors import InvalidRequest, PermissionDenied
from rgs.service.replay import DEVELOPMENT_SECRET, ReplayLinks, replay_links

SECRET = b"a-test-secret-of-some-length"
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _token(url: str) -> str:
    return url.split("#", 1)[1]


def test_a_link_reads_back_until_its_time_and_is_expired_from_then() -> None:
    clock = Clock()
    links = ReplayLinks(SECRET, "https://play.example/", default_ttl_s=900, clock=clock)
    url, expires = links.issue("op", "brand", "p-1", "r_1")
    assert url.startswith("https://play.example/replay#r1.") and expires == T0 + timedelta(
        seconds=900)
    cap = links.read(_token(url))
    assert (cap.operator_id, cap.brand_id, cap.player_id, cap.round_id, cap.expires_at) == (
        "op", "brand", "p-1", "r_1", expires)
    clock.now = expires - timedelta(seconds=1)
    links.read(_token(url))
    clock.now = expires
    with pytest.raises(PermissionDenied) as refused:
        links.read(_token(url))
    assert refused.value.reason == "REPLAY_LINK_EXPIRED"


def test_a_link_may_name_the_language_the_page_opens_in_outside_its_signature() -> None:
    links = ReplayLinks(SECRET, "https://play.example", clock=Clock())
    url, _ = links.issue("op", "brand", "p-1", "r_1", language="de")
    assert url.startswith("https://play.example/replay?lang=de#r1.")
    assert links.read(_token(url)).round_id == "r_1"  # the language is not signed
    assert "?" not in links.issue("op", "brand", "p-1", "r_1")[0]  # none: the browser's
    with pytest.raises(InvalidRequest) as refused:
        links.issue("op", "brand", "p-1", "r_1", language="fr")
    assert (refused.value.reason, refused.value.field) == ("UNSUPPORTED_LANGUAGE", "language")


@pytest.mark.parametrize("change", range(0, 120, 7))
def test_any_changed_character_makes_the_link_invalid(change: int) -> None:
    links = ReplayLinks(SECRET, "http://x", clock=Clock())
    token = _token(links.issue("op", "brand", "p-1", "r_1")[0])
    i = change % len(token)
    altered = token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1:]
    with pytest.raises(PermissionDenied) as refused:
        links.read(altered)
    assert refused.value.reason == "REPLAY_LINK_INVALID"


def test_another_secrets_link_and_garbage_are_invalid_and_the_secret_stays_hidden() -> None:
    mine, theirs = (ReplayLinks(s, "http://x", clock=Clock())
                    for s in (SECRET, b"another-secret-entirely"))
    for token in (_token(theirs.issue("op", "b", "p", "r")[0]), "", "r1..", "x" * 5000):
        with pytest.raises(PermissionDenied) as refused:
            mine.read(token)
        assert refused.value.reason == "REPLAY_LINK_INVALID"
    assert SECRET.decode() not in repr(mine)
    with pytest.raises(ValueError):
        ReplayLinks(b"short", "http://x")


@pytest.mark.parametrize("ttl", [-1, 59, 86401])
def test_a_lifetime_out_of_range_is_refused(ttl: int) -> None:
    with pytest.raises(InvalidRequest) as refused:
        ReplayLinks(SECRET, "http://x").issue("op", "b", "p", "r", ttl)
    assert refused.value.reason == "INVALID_REPLAY_TTL"


def test_the_settings_choose_the_secret_and_production_needs_one(tmp_path: Path) -> None:
    common = {"url": None, "web_listen": "127.0.0.1:8080", "ttl_s": 900}
    assert replay_links(secret=None, secret_file=None, production=True, **common) is None
    dev = replay_links(secret=None, secret_file=None, production=False, **common)
    assert dev is not None and dev.base_url == "http://127.0.0.1:8080"
    by_dev = ReplayLinks(DEVELOPMENT_SECRET, "http://x")
    dev.read(_token(by_dev.issue("op", "b", "p", "r")[0]))
    secret_file = tmp_path / "replay-secret"
    secret_file.write_bytes(SECRET + b"\n")
    from_file = replay_links(secret=None, secret_file=str(secret_file), production=True,
                             **{**common, "url": "https://play.example"})
    assert from_file is not None and from_file.base_url == "https://play.example"
    from_file.read(_token(ReplayLinks(SECRET, "http://x").issue("op", "b", "p", "r")[0]))
    assert replay_links(secret=SECRET.decode(), secret_file=None, production=True,
                        url=None, web_listen=None, ttl_s=900) is None  # no edge address
