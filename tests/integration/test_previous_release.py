"""Expand/contract: the previous release keeps working on the schema this tree migrates to.

The previous release is the commit named in ``ops/previous-release``. Its ``services/`` and
``tests/`` are extracted with ``git archive``; its migration files are replaced by this tree's,
so its own test fixtures build their databases with the new migrations, and its journal
integration tests run with its own code (first on ``PYTHONPATH``) against them. During a rolling
upgrade both releases also serialise a player's calls against each other: in session pool mode
this tree takes the previous release's advisory lock before its lease.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rgs.journal.migrate import migrations
from rgs.journal.postgres import PostgresJournal
from rgs.service.ports import JournalBusy

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "services" / "rgs" / "journal" / "migrations"

#: Run with the previous release's code: holds a player's journal for a while, or reports
#: that it could not.
HOLDER = """
import asyncio, sys
from rgs.journal.postgres import PostgresJournal

async def main(url, key, hold_s):
    journal = await PostgresJournal.connect(url, lock_wait_s=0.3)
    try:
        async with journal.player(key):
            print("held", flush=True)
            await asyncio.sleep(hold_s)
        print("released", flush=True)
    except Exception as exc:
        print(type(exc).__name__, flush=True)
    finally:
        await journal.close()

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
"""


#: The PostgreSQL journal's integration tests, as a release may have them.
JOURNAL_TESTS = ("tests/integration/test_journal.py", "tests/integration/test_journal_holds.py",
                 "tests/integration/test_journal_outbox.py")


def previous_release() -> str:
    """The commit named in ops/previous-release."""
    lines = (ROOT / "ops" / "previous-release").read_text().splitlines()
    return next(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@pytest.fixture(scope="module")
def old_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The previous release's services/, tests/ and pyproject.toml, with this tree's
    migration files in place of its own."""
    commit = previous_release()
    tree = tmp_path_factory.mktemp("previous-release")
    archive = subprocess.run(["git", "archive", commit, "services", "tests", "pyproject.toml"],
                             cwd=ROOT, capture_output=True, check=False)
    if archive.returncode != 0:
        pytest.fail(f"cannot extract the previous release {commit}: "
                    f"{archive.stderr.decode().strip()} (in a shallow clone: "
                    f"git fetch --depth=1 origin {commit})", pytrace=False)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    old = tree / "services" / "rgs" / "journal" / "migrations"
    for f in old.glob("[0-9]*.sql"):
        f.unlink()
    for f in MIGRATIONS.glob("[0-9]*.sql"):
        shutil.copy(f, old / f.name)
    yield tree


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RGS_")}
    env["PYTHONPATH"] = str(tree / "services")  # ahead of this tree's editable install
    return env


def test_the_extracted_tree_runs_the_previous_releases_code_with_the_new_migrations(
        old_tree: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import rgs.journal.migrate as m, rgs.journal.postgres as p; "
         "print(p.__file__); print(*[x.name for x in m.migrations()])"],
        cwd=old_tree, env=_env(old_tree), capture_output=True, text=True, check=True)
    module, names = done.stdout.splitlines()
    assert module.startswith(str(old_tree))
    assert names.split() == [m.name for m in migrations()]
    assert "0020_leases.sql" in names


def test_the_previous_releases_journal_tests_pass_on_the_new_schema(old_tree: Path) -> None:
    # The journal's tests were one module until they were split by subject; a release has the
    # ones it has.
    modules = [m for m in JOURNAL_TESTS if (old_tree / m).exists()]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *modules],
        cwd=old_tree, env=_env(old_tree), capture_output=True, text=True, timeout=600,
        check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


async def _holder(tree: Path, url: str, key: str, hold_s: float
                  ) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLDER, url, key, str(hold_s), cwd=tree, env=_env(tree),
        stdout=asyncio.subprocess.PIPE)


async def test_replicas_of_both_releases_hold_a_player_one_at_a_time(
        old_tree: Path, rgs_database_url: str) -> None:
    journal = await PostgresJournal.connect(rgs_database_url, lock_wait_s=0.3)
    try:
        # A replica of the previous release holds the player: this release waits, then gives up.
        old = await _holder(old_tree, rgs_database_url, "op/both", 3)
        assert old.stdout is not None
        assert await asyncio.wait_for(old.stdout.readline(), 60) == b"held\n"
        with pytest.raises(JournalBusy):
            async with journal.player("op/both"):
                pass
        assert await asyncio.wait_for(old.stdout.readline(), 10) == b"released\n"
        await old.wait()
        # And the other way round.
        async with journal.player("op/both"):
            old = await _holder(old_tree, rgs_database_url, "op/both", 0)
            assert old.stdout is not None
            assert await asyncio.wait_for(old.stdout.readline(), 60) == b"JournalBusy\n"
            await old.wait()
    finally:
        await journal.close()
