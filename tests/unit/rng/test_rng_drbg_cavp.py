"""HMAC_DRBG (SHA-256) against every NIST CAVP known-answer vector in ``tests/data/rng``."""

from __future__ import annotations

import pytest

from rgs.rng.drbg import HmacDrbg
from rgs.rng.errors import DrbgError, DrbgUninstantiated, ReseedRequired
from support.data import data_file


def _vectors(name: str) -> list[dict[str, object]]:
    """Parse a CAVP .rsp file into one dict per COUNT, keeping the section parameters."""
    vectors: list[dict[str, object]] = []
    section: dict[str, str] = {}
    current: dict[str, object] | None = None
    for raw in data_file("rng", name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if current is not None:
                vectors.append(current)
                current = None
            key, _, val = line.strip("[]").partition(" = ")
            section[key] = val
            continue
        key, _, val = line.partition("=")
        key, val = key.strip(), val.strip()
        if key == "COUNT":
            if current is not None:
                vectors.append(current)
            current = {"section": dict(section), "COUNT": int(val), "AdditionalInput": []}
            continue
        assert current is not None, f"field {key} outside a vector"
        if key == "AdditionalInput":
            inputs = current["AdditionalInput"]
            assert isinstance(inputs, list)
            inputs.append(bytes.fromhex(val))
        else:
            current[key] = bytes.fromhex(val)
    if current is not None:
        vectors.append(current)
    return vectors


NO_RESEED = _vectors("hmac_drbg_sha256_no_reseed.rsp")
NO_PR = _vectors("hmac_drbg_sha256_no_pr.rsp")


def _b(v: dict[str, object], key: str) -> bytes:
    val = v[key]
    assert isinstance(val, bytes)
    return val


def test_cavp_files_hold_240_sha256_vectors_each() -> None:
    for vectors in (NO_RESEED, NO_PR):
        assert len(vectors) == 240
        assert {v["section"]["PredictionResistance"] for v in vectors} == {"False"}  # type: ignore[index]
        assert all(len(_b(v, "ReturnedBits")) == 128 for v in vectors)
        assert all(len(v["AdditionalInput"]) == 2 for v in vectors)  # type: ignore[arg-type]
    assert all("EntropyInputReseed" in v for v in NO_PR)
    assert not any("EntropyInputReseed" in v for v in NO_RESEED)


def test_drbg_matches_nist_cavp_no_reseed_vectors() -> None:
    failures = []
    for v in NO_RESEED:
        drbg = HmacDrbg.instantiate(entropy_input=_b(v, "EntropyInput"), nonce=_b(v, "Nonce"),
                                    personalization=_b(v, "PersonalizationString"))
        first, second = v["AdditionalInput"]  # type: ignore[misc]
        drbg.generate(128, additional_input=first)
        if drbg.generate(128, additional_input=second) != _b(v, "ReturnedBits"):
            failures.append((v["section"], v["COUNT"]))
    assert failures == []


def test_drbg_matches_nist_cavp_reseed_vectors() -> None:
    failures = []
    for v in NO_PR:
        drbg = HmacDrbg.instantiate(entropy_input=_b(v, "EntropyInput"), nonce=_b(v, "Nonce"),
                                    personalization=_b(v, "PersonalizationString"))
        drbg.reseed(entropy_input=_b(v, "EntropyInputReseed"),
                    additional_input=_b(v, "AdditionalInputReseed"))
        first, second = v["AdditionalInput"]  # type: ignore[misc]
        drbg.generate(128, additional_input=first)
        if drbg.generate(128, additional_input=second) != _b(v, "ReturnedBits"):
            failures.append((v["section"], v["COUNT"]))
    assert failures == []


def test_drbg_refuses_generate_past_the_reseed_interval_until_reseeded() -> None:
    drbg = HmacDrbg.instantiate(entropy_input=b"\x01" * 32, nonce=b"\x02" * 16, reseed_interval=2)
    drbg.generate(16)
    drbg.generate(16)
    with pytest.raises(ReseedRequired):
        drbg.generate(16)
    drbg.reseed(entropy_input=b"\x03" * 32)
    assert len(drbg.generate(16)) == 16


def test_drbg_request_is_capped_at_2_pow_19_bits() -> None:
    drbg = HmacDrbg.instantiate(entropy_input=b"\x01" * 32, nonce=b"\x02" * 16)
    assert len(drbg.generate(65536)) == 65536
    with pytest.raises(DrbgError):
        drbg.generate(65537)


def test_drbg_uninstantiated_refuses_every_call() -> None:
    drbg = HmacDrbg.instantiate(entropy_input=b"\x01" * 32, nonce=b"\x02" * 16)
    drbg.uninstantiate()
    with pytest.raises(DrbgUninstantiated):
        drbg.generate(1)
    with pytest.raises(DrbgUninstantiated):
        drbg.reseed(entropy_input=b"\x03" * 32)


def test_generate_loop_is_plain_hmac_sha256_chaining() -> None:
    import hmac
    import os

    from rgs.rng.drbg import _hmac_chain

    key, v = os.urandom(32), os.urandom(32)
    expected = []
    for _ in range(100):
        v = hmac.digest(key, v, "sha256")
        expected.append(v)
    assert _hmac_chain(key, expected[0], 99) == expected[1:]


def test_every_drbg_instance_runs_the_known_answer_self_test_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from rgs.rng import drbg as drbg_module
    from rgs.rng.certified import CertifiedRng
    from rgs.rng.errors import DrbgSelfTestFailed

    drbg_module.known_answer_test()  # the real mechanism passes
    real_chain = drbg_module._hmac_chain

    def off_by_one_bit(key: bytes, v: bytes, blocks: int) -> list[bytes]:
        out = real_chain(key, v, blocks)
        return [bytes([out[0][0] ^ 1]) + out[0][1:], *out[1:]] if out else out

    monkeypatch.setattr(drbg_module, "_hmac_chain", off_by_one_bit)
    with pytest.raises(DrbgSelfTestFailed):
        CertifiedRng(read=os.urandom)
