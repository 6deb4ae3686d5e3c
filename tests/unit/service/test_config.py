"""Settings refuse unsafe combinations; the platform file (operators, wallets, brands) is
validated at start, naming every field at fault and never printing a secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgs.config import ConfigError, load_settings, platform
from rgs.platform_file import DEFAULT_PLATFORM_FILE, PlatformError, load_platform


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


def test_a_players_lease_outlasts_two_calls_to_the_slowest_wallet() -> None:
    # The shipped platform file's wallets time out after 5 s.
    assert load_settings().player_lease_s == 30.0
    assert platform(load_settings(player_lease_s=10)).operators
    with pytest.raises(ConfigError, match="RGS_PLAYER_LEASE_S"):
        platform(load_settings(player_lease_s=9))


def test_the_pool_mode_is_session_or_transaction() -> None:
    assert load_settings().database_pool_mode == "session"
    assert load_settings(database_pool_mode="transaction").database_pool_mode == "transaction"
    with pytest.raises(ConfigError):
        load_settings(database_pool_mode="statement")


def test_the_launch_url_has_no_query_nor_fragment_as_the_code_goes_in_the_fragment() -> None:
    assert load_settings(launch_url="https://play.example.com/bj/").launch_url \
        == "https://play.example.com/bj/"
    for bad in ("https://play.example.com/#x", "https://play.example.com/?a=1",
                "play.example.com", "ftp://play.example.com/"):
        with pytest.raises(ConfigError, match="RGS_LAUNCH_URL must be an http"):
            load_settings(launch_url=bad)
    with pytest.raises(ConfigError):
        load_settings(launch_ttl_s=5)


def test_tls_needs_both_certificate_and_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_settings(tls_cert_file=tmp_path / "c.pem")


def test_shipped_platform_file_gives_each_operator_its_wallet_and_brands() -> None:
    plat = load_platform(DEFAULT_PLATFORM_FILE)
    assert set(plat.operators) == {"dev-operator", "other-operator"}
    dev, other = plat.operators["dev-operator"], plat.operators["other-operator"]
    assert dev.wallet.address != other.wallet.address
    assert dev.wallet.api_key.get_secret_value() == "sandbox-wallet-dev-key"
    assert "sandbox-wallet-dev-key" not in repr(dev)  # SecretStr
    demo = plat.brands["demo-casino"]
    assert demo.currency == "EUR" and demo.operator_id == "dev-operator"
    assert demo.limits["EUR"]["vip-platinum"].main_min == 1000
    assert demo.limits["EUR"]["classic-resplit"].main_max == 100_000
    assert plat.brands["other-casino"].currencies == ("EUR", "USD")


def _platform(tmp_path: Path, brand: dict[str, object] | None = None,
              wallet: dict[str, object] | None = None, operators: int = 1) -> Path:
    brand = brand or {"id": "b", "currencies": {"EUR": {}}, "variants": {"power": {}}}
    wallet = wallet or {"kind": "grpc", "address": "127.0.0.1:1",
                        "api_key": {"env": "TEST_WALLET_KEY"}}
    ops = [{"id": f"o{i}", "wallet": wallet,
            "brands": [{**brand, "id": f"{brand['id']}{i}"} if i else brand]}
           for i in range(operators)]
    path = tmp_path / "platform.json"
    path.write_text(json.dumps({"operators": ops}))
    return path


ENV = {"TEST_WALLET_KEY": "a-wallet-key-of-some-length"}


@pytest.mark.parametrize(("brand", "where"), [
    ({"id": "b", "currencies": {"EUR": {}}, "variants": {"baccarat": {}}},
     "operators[0].brands[0].variants"),
    ({"id": "b", "currencies": {"euro": {}}, "variants": {"power": {}}},
     "operators[0].brands[0].currencies.euro (the key)"),
    ({"id": "b", "currencies": {"EUR": {"limits": {"main_min": 500, "main_max": 100,
                                                   "side_min": 1, "side_max": 2}}},
      "variants": {"power": {}}}, "operators[0].brands[0].currencies.EUR.limits"),
    ({"id": "b", "currencies": {"EUR": {"limits": {"main_min": 0, "main_max": 100,
                                                   "side_min": 1, "side_max": 2}}},
      "variants": {"power": {}}}, "operators[0].brands[0].currencies.EUR.limits.main_min"),
    ({"id": "b", "currencies": {"EUR": {"variant_limits": {"vip-platinum": {
        "main_min": 1, "main_max": 2, "side_min": 1, "side_max": 2}}}},
      "variants": {"power": {}}}, "operators[0].brands[0].currencies.EUR.variant_limits"),
    ({"id": "b", "currencies": {"EUR": {}}, "variants": {"power": {}}, "extra": 1},
     "operators[0].brands[0].extra"),
    ({"id": "b", "currencies": {"EUR": {}}, "variants": {"power": {"decks": 2}}},
     "operators[0].brands[0].variants.power.decks"),
    ({"id": "b", "currencies": {"EUR": {}}, "variants": {"electronic-h17": {"decks": 3}}},
     "operators[0].brands[0].variants.electronic-h17.decks"),
    ({"id": "b", "currencies": {"EUR": {}},
      "variants": {"power": {"side_bets": ["perfect_pairs"]}}},
     "operators[0].brands[0].variants.power.side_bets"),
    ({"id": "b", "currencies": {"EUR": {}}, "variants": {"power": {"cash_out": False}}},
     "operators[0].brands[0].variants.power.cash_out"),
    ({"id": "b", "currencies": {"EUR": {}}, "variants": {"power": {}},
      "web_origins": ["https://games.example/play"]}, "operators[0].brands[0].web_origins[0]"),
    ({"id": "b", "currencies": {"EUR": {}}, "variants": {"power": {}},
      "web_origins": ["games.example"]}, "operators[0].brands[0].web_origins[0]"),
])
def test_an_invalid_platform_file_is_refused_naming_the_field(
        tmp_path: Path, brand: dict[str, object], where: str) -> None:
    with pytest.raises(PlatformError) as err:
        load_platform(_platform(tmp_path, brand), environ=ENV)
    assert where in str(err.value), str(err.value)


def test_brand_ids_are_unique_across_operators(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    w = {"kind": "grpc", "address": "h:1", "api_key": {"env": "TEST_WALLET_KEY"}}
    b = {"id": "same", "currencies": {"EUR": {}}, "variants": {"power": {}}}
    path.write_text(json.dumps({"operators": [{"id": "a", "wallet": w, "brands": [b]},
                                              {"id": "c", "wallet": w, "brands": [b]}]}))
    with pytest.raises(PlatformError, match=r"operators\[1\]\.brands\[0\]\.id"):
        load_platform(path, environ=ENV)


def test_a_literal_secret_is_refused_and_never_echoed(tmp_path: Path) -> None:
    path = _platform(tmp_path, wallet={"kind": "http", "url": "https://w.example/rgs",
                                       "hmac_secret": "literal-secret-value-1234"})
    with pytest.raises(PlatformError) as err:
        load_platform(path, environ=ENV)
    assert "operators[0].wallet.hmac_secret" in str(err.value)
    assert '{"env"' in str(err.value)
    assert "literal-secret-value-1234" not in str(err.value)


def test_secrets_come_from_the_environment_or_files(tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_text("from-a-file-0123456789\n")
    path = _platform(tmp_path, wallet={"kind": "http", "url": "https://w.example/rgs",
                                       "hmac_secret": {"file": "key"}})
    plat = load_platform(path, environ={})
    assert plat.operators["o0"].wallet.hmac_secret.get_secret_value() == \
        "from-a-file-0123456789"
    with pytest.raises(PlatformError, match="TEST_WALLET_KEY is not set"):
        load_platform(_platform(tmp_path), environ={})
    with pytest.raises(PlatformError, match="at least 8") as err:
        load_platform(_platform(tmp_path), environ={"TEST_WALLET_KEY": "short"})
    assert "short" not in str(err.value).replace("at least", "")


def test_production_refuses_plaintext_wallets_and_the_sandbox_keys(tmp_path: Path) -> None:
    with pytest.raises(PlatformError, match=r"wallet\.tls.*TLS only"):
        load_platform(_platform(tmp_path), production=True, environ=ENV)
    with pytest.raises(PlatformError, match="https only"):
        load_platform(_platform(tmp_path, wallet={
            "kind": "http", "url": "http://w.example/rgs", "hmac_secret": {"env": "S"}}),
            production=True, environ={"S": "x" * 32})
    with pytest.raises(PlatformError, match="sandbox key is refused"):
        load_platform(DEFAULT_PLATFORM_FILE, production=True)


def test_settings_errors_never_print_secret_values() -> None:
    """Found: a configuration error at start-up printed the pydantic error with its input."""
    with pytest.raises(ConfigError) as err:
        load_settings(database_url=12345678, listen="not-a-secret-but-bad" * 0 + "x:1",
                      lock_wait_s="hunter2-password")
    assert "hunter2" not in str(err.value)
    assert "lock_wait_s" in str(err.value)


def test_the_single_wallet_settings_are_refused_with_what_to_do() -> None:
    with pytest.raises(ConfigError, match=r"RGS_WALLET_API_KEY.*RGS_PLATFORM_FILE") as err:
        load_settings(environ={"RGS_WALLET_API_KEY": "wallet-secret-123"})
    assert "wallet-secret-123" not in str(err.value)


def test_a_brand_allows_the_browser_origins_it_lists_and_no_others(tmp_path: Path) -> None:
    from rgs.api.origins import any_brand_allows, brand_allows, check_origin
    from rgs.service.errors import PermissionDenied

    plat = load_platform(_platform(tmp_path, {
        "id": "b", "currencies": {"EUR": {}}, "variants": {"power": {}},
        "web_origins": ["https://games.example", "http://127.0.0.1:8765"]}), environ=ENV)
    brand = plat.brands["b"]
    assert brand.web_origins == ("https://games.example", "http://127.0.0.1:8765")
    assert brand_allows(brand, "http://127.0.0.1:8765")
    assert not brand_allows(brand, "http://127.0.0.1:8766")  # another port: another origin
    assert not brand_allows(brand, "https://games.example.evil")
    assert any_brand_allows(plat.brands.values(), "https://games.example")
    with pytest.raises(PermissionDenied) as err:
        check_origin(brand, "https://evil.example")
    assert err.value.reason == "ORIGIN_NOT_ALLOWED" and "web_origins" in str(err.value)
    shipped = load_platform(DEFAULT_PLATFORM_FILE)
    assert all(b.web_origins == () for b in shipped.brands.values())


def test_production_refuses_any_origin(tmp_path: Path) -> None:
    path = _platform(tmp_path, {"id": "b", "currencies": {"EUR": {}},
                                "variants": {"power": {}}, "web_origins": ["*"]})
    assert load_platform(path, environ=ENV).brands["b"].web_origins == ("*",)
    with pytest.raises(PlatformError, match=r"brands\[0\]\.web_origins: any origin"):
        load_platform(path, environ=ENV, production=True)
