"""Settings refuse unsafe combinations; the brand file is validated at start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgs.config import DEFAULT_BRANDS_FILE, ConfigError, load_brands, load_settings


def test_plaintext_off_loopback_is_refused_unless_explicitly_allowed() -> None:
    with pytest.raises(ConfigError):
        load_settings(listen="0.0.0.0:50051")
    assert load_settings(listen="0.0.0.0:50051", allow_plaintext=True).listen == "0.0.0.0:50051"
    assert load_settings(listen="127.0.0.1:0").listen == "127.0.0.1:0"


def test_production_refuses_test_mode_and_plaintext_off_loopback() -> None:
    with pytest.raises(ConfigError, match="test_mode"):
        load_settings(environment="production", test_mode=True)
    with pytest.raises(ConfigError):
        load_settings(environment="production", listen="0.0.0.0:1", allow_plaintext=True)


def test_the_shutdown_grace_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().shutdown_grace_s == 5.0
    monkeypatch.setenv("RGS_SHUTDOWN_GRACE_S", "20")
    assert load_settings().shutdown_grace_s == 20.0
    with pytest.raises(ConfigError):
        load_settings(shutdown_grace_s=-1)


def test_a_players_lease_outlasts_two_wallet_calls() -> None:
    assert load_settings().player_lease_s == 30.0
    assert load_settings(wallet_timeout_s=4, player_lease_s=8).player_lease_s == 8
    with pytest.raises(ConfigError, match="player_lease_s"):
        load_settings(wallet_timeout_s=5, player_lease_s=9)


def test_the_pool_mode_is_session_or_transaction() -> None:
    assert load_settings().database_pool_mode == "session"
    assert load_settings(database_pool_mode="transaction").database_pool_mode == "transaction"
    with pytest.raises(ConfigError):
        load_settings(database_pool_mode="statement")


def test_tls_needs_both_certificate_and_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_settings(tls_cert_file=tmp_path / "c.pem")


def test_shipped_brand_file_loads_with_limits_per_variant() -> None:
    brands = load_brands(DEFAULT_BRANDS_FILE)
    demo = brands["demo-casino"]
    assert demo.currency == "EUR" and demo.operator_id == "dev-operator"
    assert demo.limits["vip-platinum"].main_min == 1000
    assert demo.limits["classic-resplit"].main_max == 100_000


@pytest.mark.parametrize("brand", [
    {"id": "b", "operator_id": "o", "currency": "EUR", "variants": ["baccarat"]},
    {"id": "b", "operator_id": "o", "currency": "euro", "variants": ["power"]},
    {"id": "b", "operator_id": "o", "currency": "EUR", "variants": ["power"],
     "limits": {"main_min": 500, "main_max": 100, "side_min": 1, "side_max": 2}},
    {"id": "b", "operator_id": "o", "currency": "EUR", "variants": ["power"],
     "variant_limits": {"vip-platinum": {"main_min": 1, "main_max": 2, "side_min": 1,
                                         "side_max": 2}}},
    {"id": "b", "operator_id": "o", "currency": "EUR", "variants": ["power"], "extra": 1},
])
def test_invalid_brand_file_is_refused(tmp_path: Path, brand: dict[str, object]) -> None:
    path = tmp_path / "brands.json"
    path.write_text(json.dumps({"brands": [brand]}))
    with pytest.raises(ConfigError):
        load_brands(path)
