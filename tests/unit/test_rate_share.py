"""The operators' rates are the installation's (docs/overload.md): each worker's bucket holds
the stated rate and burst divided by the workers sharing it, the workers of this replica times
the replicas the peers' DNS name resolves to, kept current as replicas come and go; a failed
lookup keeps the last count; together the workers admit what the platform file states."""

from __future__ import annotations

import pytest

from rgs.api.overload import Admission, TokenBucket
from rgs.api.rate_share import RateShare, resolve_addresses, start_rate_share
from rgs.platform_file import RateLimit
from rgs.service.errors import ResourceExhausted


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _admitted(admission: Admission, operator: str, calls: int) -> int:
    n = 0
    for _ in range(calls):
        try:
            admission.admit_operator(operator)
            n += 1
        except ResourceExhausted:
            pass
    return n


def test_a_bucket_shared_by_n_workers_holds_a_nth_of_the_rate_and_burst() -> None:
    clock = Clock()
    bucket = TokenBucket(RateLimit(calls_per_s=60, burst=12), clock, sharers=4)
    assert [bucket.take() for _ in range(4)] == [0, 0, 0, 67]  # burst 3, a token per 66.7 ms
    clock.now += 1.0
    assert sum(1 for _ in range(20) if bucket.take() == 0) == 3  # 15/s refills to its burst
    # Never less than one call at once, however many share it.
    tiny = TokenBucket(RateLimit(calls_per_s=1, burst=2), clock, sharers=8)
    assert [tiny.take() for _ in range(2)] == [0, 8000]


def test_workers_of_every_replica_together_admit_the_installations_rate() -> None:
    clock = Clock()
    limit = {"op-a": RateLimit(calls_per_s=100, burst=20)}
    workers = [Admission(max_in_flight=0, rates=limit, clock=clock) for _ in range(4)]
    for w in workers:
        w.share(4)
    assert sum(_admitted(w, "op-a", 50) for w in workers) == 20  # the stated burst, not 4x
    clock.now += 2.0  # two seconds at 100/s, spread over the four
    assert sum(_admitted(w, "op-a", 100) for w in workers) == 20  # capped by the burst again
    clock.now += 0.1
    assert sum(_admitted(w, "op-a", 100) for w in workers) == 8  # 10 in 0.1 s, ~2.5 each
    # Unshared (one worker alone), the same worker admits the whole burst.
    alone = Admission(max_in_flight=0, rates=limit, clock=clock)
    assert _admitted(alone, "op-a", 50) == 20


async def test_the_share_counts_this_replicas_workers_times_the_replicas_resolved() -> None:
    admission = Admission(max_in_flight=0, rates={"op-a": RateLimit(calls_per_s=10, burst=10)})
    answers: list[int | OSError] = [3, 3, OSError("no such host"), 5, 0]

    async def resolve(name: str) -> int:
        assert name == "rgs-headless.casino.svc"
        got = answers.pop(0)
        if isinstance(got, OSError):
            raise got
        return got

    share = RateShare(admission, replica_workers=2, peers="rgs-headless.casino.svc",
                      resolve=resolve)
    assert await share.refresh() == 6 and admission.sharers == 6
    assert await share.refresh() == 6
    assert await share.refresh() == 6  # a failed lookup keeps the last count
    assert await share.refresh() == 10  # the autoscaler added two
    assert await share.refresh() == 2  # nothing resolved yet: this replica alone
    # Without peers: this replica's workers only.
    alone = RateShare(admission, replica_workers=4, peers="", resolve=resolve)
    assert await alone.refresh() == 4 and answers == []


async def test_nothing_is_shared_without_a_rate_and_the_real_resolver_counts_addresses(
        ) -> None:
    assert await start_rate_share(Admission(max_in_flight=8), replica_workers=4,
                                  peers="localhost") is None
    rated = Admission(max_in_flight=0, rates={"op-a": RateLimit(calls_per_s=10, burst=10)})
    assert await start_rate_share(rated, replica_workers=3, peers="") is None
    assert rated.sharers == 3
    stop = await start_rate_share(rated, replica_workers=3, peers="localhost")
    assert stop is not None
    await stop()
    assert rated.sharers >= 3
    assert await resolve_addresses("localhost") >= 1
    with pytest.raises(OSError):
        await resolve_addresses("no-such-host.invalid")
