"""The book of wins' wallet answers a replica writes a moment after the calls that paid them
(rgs.journal.late_answers): one write for everyone's answers, at once for a player about to be
read, and nothing lost when the database does not take them."""

from __future__ import annotations

import asyncio

import pytest

from rgs.journal.late_answers import LateAnswer, LateAnswers
from rgs.service.ports import JournalUnavailable
from rgs.service.writes import PaidAnswer

pytestmark = pytest.mark.asyncio


def _answer(tid: str) -> PaidAnswer:
    return PaidAnswer(transaction_id=tid, balance_after=100, request_id=f"r-{tid}",
                      response="{}")


class Database:
    """Takes batches, or refuses them while ``down``; ``gate`` holds a write until set."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[str, str]]] = []
        self.down = False
        self.attempts = 0
        self.gate = asyncio.Event()
        self.gate.set()

    async def write(self, batch: list[LateAnswer]) -> None:
        await self.gate.wait()
        self.attempts += 1
        if self.down:
            raise JournalUnavailable("the journal database is down")
        self.batches.append([(a.player_key, a.answer.transaction_id) for a in batch])


async def test_answers_of_many_players_are_one_write_after_the_interval() -> None:
    db = Database()
    book = LateAnswers(db.write, interval_s=0.05)
    for p in ("ann", "bob", "cy"):
        book.add(p, _answer(f"{p}:credit"))
    assert db.batches == [] and len(book) == 3 and book.owes("bob")
    await asyncio.sleep(0.15)
    assert db.batches == [[("ann", "ann:credit"), ("bob", "bob:credit"), ("cy", "cy:credit")]]
    assert len(book) == 0 and not book.owes("bob")


async def test_a_player_about_to_be_read_has_everything_owed_written_first() -> None:
    db = Database()
    book = LateAnswers(db.write, interval_s=60)
    book.add("ann", _answer("a1"))
    book.add("bob", _answer("b1"))
    await book.before_read("cy")  # owed nothing: no write
    assert db.batches == []
    await book.before_read("bob")
    assert db.batches == [[("ann", "a1"), ("bob", "b1")]]


async def test_a_read_waits_for_the_batch_under_way_that_holds_its_player() -> None:
    db = Database()
    book = LateAnswers(db.write, interval_s=60)
    book.add("ann", _answer("a1"))
    db.gate.clear()
    writing = asyncio.create_task(book.flush())
    await asyncio.sleep(0)
    assert book.owes("ann")  # being written
    reading = asyncio.create_task(book.before_read("ann"))
    await asyncio.sleep(0.01)
    assert not reading.done()
    db.gate.set()
    await asyncio.gather(writing, reading)
    assert db.batches == [[("ann", "a1")]] and not book.owes("ann")


async def test_a_batch_the_database_refuses_is_kept_and_written_next_time_in_order() -> None:
    db = Database()
    book = LateAnswers(db.write, interval_s=0.05, retry_s=0.05)
    book.add("ann", _answer("a1"))
    db.down = True
    await book.before_read("ann")  # logged: the read then finds the win pending
    assert db.batches == [] and book.owes("ann")
    book.add("bob", _answer("b1"))
    db.down = False
    await asyncio.sleep(0.15)
    assert db.batches == [[("ann", "a1"), ("bob", "b1")]]
    with pytest.raises(JournalUnavailable):
        db.down = True
        book.add("cy", _answer("c1"))
        await book.flush()  # shutdown's flush says it failed
    assert book.owes("cy")


async def test_past_the_limit_the_oldest_answers_are_dropped_for_the_next_call_to_send_again(
        ) -> None:
    db = Database()
    book = LateAnswers(db.write, interval_s=60, most_kept=2)
    for tid in ("a1", "b1", "b2"):
        book.add(tid[0], _answer(tid))
    assert len(book) == 2 and not book.owes("a") and book.owes("b")
    await book.flush()
    assert db.batches == [[("b", "b1"), ("b", "b2")]]


async def test_after_a_refused_batch_the_next_attempt_waits_the_retry_delay() -> None:
    db = Database()
    db.down = True
    book = LateAnswers(db.write, interval_s=0.01, retry_s=0.3)
    book.add("ann", _answer("a1"))
    await asyncio.sleep(0.1)  # refused at 0.01 s; not asked again before 0.31 s
    assert db.attempts == 1 and db.batches == []
    db.down = False
    await asyncio.sleep(0.4)
    assert db.attempts == 2 and db.batches == [[("ann", "a1")]]
