"""No two DRBG instances in sync: fresh entropy and a unique personalization string each."""

from __future__ import annotations

import os

from rgs.rng.certified import CertifiedRng
from rgs.rng.drbg import personalization_string


def test_personalization_string_is_unique_per_instance_and_names_the_process() -> None:
    a, b = personalization_string(), personalization_string()
    assert a != b
    assert f"|{os.getpid()}|".encode() in a


def test_two_instances_in_one_process_produce_different_streams() -> None:
    assert CertifiedRng().raw(64) != CertifiedRng().raw(64)


def test_forked_child_does_not_replay_the_parents_stream() -> None:
    rng = CertifiedRng()
    rng.below(52)  # fill the buffer before forking
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read_end)
        os.write(write_end, rng.raw(32) + bytes(rng.below(256) for _ in range(32)))
        os._exit(0)
    os.close(write_end)
    child = b""
    while chunk := os.read(read_end, 64):
        child += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    parent = rng.raw(32) + bytes(rng.below(256) for _ in range(32))
    assert len(child) == 64
    assert child[:32] != parent[:32]
    assert child[32:] != parent[32:]
