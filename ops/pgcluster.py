"""Private PostgreSQL 15 clusters on this machine, for the failover test and bench and the
restore drill: a primary, a streaming hot standby (pg_basebackup -R), WAL archiving, a base
backup and a point-in-time restore into a new cluster.

Everything lives under one directory (not a pytest tmp_path: that is 0700 and the server runs as
its own OS user). As root, every PostgreSQL program runs as the ``postgres`` OS user (initdb
refuses root). Clusters listen on 127.0.0.1 only, trust authentication, on free ports.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BIN = Path(os.environ.get("RGS_PG_BIN", "/usr/lib/postgresql/15/bin"))
"""The PostgreSQL programs (override with RGS_PG_BIN)."""

OS_USER = "postgres"


def available() -> str | None:
    """None when clusters can be made here, else why not."""
    if not (BIN / "initdb").exists():
        return f"no {BIN}/initdb (PostgreSQL 15 server programs)"
    if os.geteuid() == 0:
        try:
            import pwd
            pwd.getpwnam(OS_USER)
        except KeyError:
            return "running as root without a postgres OS user"
    return None


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    cmd = list(args)
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", OS_USER, "--", *cmd]
    return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=120)


def workspace(prefix: str = "rgs-pg-") -> Path:
    """A fresh directory the server's OS user owns."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(path, OS_USER, OS_USER)
    return path


@dataclass
class Cluster:
    """One cluster: its data directory and port."""

    data: Path
    port: int

    @property
    def url(self) -> str:
        """The maintenance database's URL."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def db_url(self, name: str) -> str:
        """A database's URL."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def conf(self, **settings: str | int) -> None:
        """Append settings to postgresql.conf (effective at the next start)."""
        with (self.data / "postgresql.conf").open("a") as f:
            for key, value in settings.items():
                f.write(f"{key} = '{value}'\n")

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        _run(str(BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.data / "server.log"),
             "-w", "-t", "60", "-o", f"-p {self.port}", "start")

    def pid(self) -> int | None:
        """The postmaster's process id (None when it is not running)."""
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        """SIGKILL the postmaster and its backends: a crashed host."""
        pid = self.pid()
        if pid is None:
            return
        with_children = [pid, *_children(pid)]
        for p in with_children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in with_children) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop it (immediate), if running."""
        if self.pid() is not None:
            _run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop",
                 check=False)

    def promote(self) -> None:
        """Promote a standby to primary and wait until it is."""
        _run(str(BIN / "pg_ctl"), "-D", str(self.data), "-w", "promote")

    def psql(self, sql: str, db: str = "postgres") -> str:
        """Run ``sql`` with psql; its output (tuples only)."""
        out = _run(str(BIN / "psql") if (BIN / "psql").exists() else "psql",
                   "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", db,
                   "-Atqc", sql)
        return out.stdout.strip()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.append(int(entry.name))
    return out


def init_primary(root: Path, *, archive: Path | None = None, synchronous: bool = False
                 ) -> Cluster:
    """initdb a primary under ``root`` ready to stream to standbys (and, with ``archive``, to
    archive every WAL segment there; with ``synchronous``, every commit waits for a standby)."""
    data = root / "primary"
    _run(str(BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
         "--no-sync", "-E", "UTF8")
    cluster = Cluster(data=data, port=free_port())
    cluster.conf(listen_addresses="127.0.0.1", unix_socket_directories=str(root),
                 wal_level="replica", max_wal_senders=10, hot_standby="on",
                 wal_keep_size="256MB", fsync="off", max_connections=200)
    if synchronous:
        cluster.conf(synchronous_standby_names="*", synchronous_commit="on")
    if archive is not None:
        archive.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(archive, OS_USER, OS_USER)
        cluster.conf(archive_mode="on", archive_timeout=1,
                     archive_command=f"test ! -f {archive}/%f && cp %p {archive}/%f")
    with (data / "pg_hba.conf").open("a") as f:
        f.write("host replication all 127.0.0.1/32 trust\n")
    cluster.start()
    return cluster


def base_backup(primary: Cluster, target: Path, *, standby: bool) -> None:
    """pg_basebackup of ``primary`` into ``target`` (``standby``: with -R, a streaming standby's
    configuration)."""
    args = [str(BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port),
            "-U", "postgres", "-D", str(target), "-X", "stream", "-c", "fast"]
    if standby:
        args.append("-R")
    _run(*args)


def start_standby(primary: Cluster, root: Path) -> Cluster:
    """A streaming hot standby of ``primary`` on its own port (asynchronous commits on it once
    promoted: no standby of its own to wait for)."""
    data = root / "standby"
    base_backup(primary, data, standby=True)
    cluster = Cluster(data=data, port=free_port())
    cluster.conf(synchronous_standby_names="", archive_mode="off")
    cluster.start()
    return cluster


def wait_streaming(primary: Cluster, timeout: float = 30) -> None:
    """Until a standby streams from ``primary``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if primary.psql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") \
                not in ("", "0"):
            return
        time.sleep(0.2)
    raise RuntimeError("no standby streaming")


def restore_to(backup: Path, archive: Path, root: Path, target_time: str) -> Cluster:
    """A new cluster from the base backup ``backup`` recovering the archived WAL up to
    ``target_time`` (then promoted: it takes writes)."""
    data = root / "restored"
    shutil.copytree(backup, data, symlinks=True)
    if os.geteuid() == 0:  # the copy is root's: hand it over
        subprocess.run(["chown", "-R", f"{OS_USER}:{OS_USER}", str(data)], check=True)
    data.chmod(0o700)
    cluster = Cluster(data=data, port=free_port())
    cluster.conf(restore_command=f"cp {archive}/%f %p", recovery_target_time=target_time,
                 recovery_target_action="promote", archive_mode="off",
                 synchronous_standby_names="")
    (data / "recovery.signal").touch()
    if os.geteuid() == 0:
        shutil.chown(data / "recovery.signal", OS_USER, OS_USER)
    for stale in ("postmaster.pid", "standby.signal"):
        (data / stale).unlink(missing_ok=True)
    cluster.start()
    deadline = time.monotonic() + 120
    while cluster.psql("SELECT pg_is_in_recovery()") != "f":
        if time.monotonic() > deadline:
            raise RuntimeError("the restored cluster did not finish recovery")
        time.sleep(0.2)
    return cluster
