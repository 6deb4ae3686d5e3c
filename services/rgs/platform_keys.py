"""The operator API keys of the platform file, kept live without a restart (docs/operators.md).

Each operator of the platform file may list ``api_keys``: each key by its SHA-256 (``sha256``)
or by a secret reference (``key: {"env": ...}`` / ``{"file": ...}``, hashed as it is read),
with a ``label`` and an optional ``expires_at``. The file is the list of the keys it wants live
(source ``platform``): a listed key not stored is added, a key an earlier file listed and this
one does not is revoked, each change a row of the audit trail (``key.added`` / ``key.revoked``
by ``system``). Listing the old and the new key at once is a rotation: both work until the old
one is dropped from the file (or expires).

Every replica reads the file at start and then every ``RGS_PLATFORM_RELOAD_S`` seconds (0: at
start only), and applies its keys when the file's content changed; a file that does not load
(invalid JSON, a field at fault, a secret not found) is logged and changes nothing: the keys
stay as they were. Several replicas apply the same file at once safely: each change is made,
and recorded, once. The rest of the platform file (wallets, brands, tables) is read at start
only. Keys are never logged; the log names the key ids (the hash's first 12 characters).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

from rgs.platform_file import Platform, PlatformError
from rgs.service.operator_keys import FileKey, OperatorKeyRotation
from rgs.service.ports import JournalError

log = logging.getLogger(__name__)


def file_keys(platform: Platform) -> dict[str, FileKey]:
    """Every key the platform file lists: key hash -> its operator, label and expiry."""
    return {k.key_hash: FileKey(operator_id=op.id, label=k.label, expires_at=k.expires_at)
            for op in platform.operators.values() for k in op.api_keys}


class PlatformKeys:
    """Applies the platform file's operator keys at start and whenever its content changes."""

    def __init__(self, path: Path, rotation: OperatorKeyRotation, *,
                 load: Callable[[Path], Platform], interval_s: float) -> None:
        self._path = path
        self._rotation = rotation
        self._load = load
        self._interval_s = interval_s
        #: The SHA-256 of the content last applied (None: none yet).
        self.applied: str | None = None

    async def refresh(self) -> tuple[int, int] | None:
        """Apply the file's keys if its content changed since the last time; (added,
        revoked), or None when nothing was applied (unchanged, or it did not load)."""
        try:
            content = await asyncio.to_thread(self._path.read_bytes)
        except OSError as exc:
            log.warning("platform file %s not read (operator keys unchanged): %s",
                        self._path, exc.strerror)
            return None
        digest = hashlib.sha256(content).hexdigest()
        if digest == self.applied:
            return None
        try:
            platform = await asyncio.to_thread(self._load, self._path)
        except PlatformError as exc:
            log.warning("platform file %s does not load (operator keys unchanged): %s",
                        self._path, exc)
            self.applied = digest  # the same content is not tried again until it changes
            return None
        changes = await self._rotation.sync_platform(file_keys(platform))
        self.applied = digest
        if changes != (0, 0):
            log.info("operator keys of the platform file applied: %d added, %d revoked",
                     *changes)
        return changes

    async def run_forever(self) -> None:
        """Apply the file's keys every interval (they were applied once at start)."""
        while self._interval_s > 0:
            await asyncio.sleep(self._interval_s)
            try:
                await self.refresh()
            except JournalError as exc:  # the database away: try again next interval
                log.warning("operator keys of the platform file not applied: %s", exc)
