"""Fingerprints: the stored form of a secret (API key, session token) and of a request (to tell
a replay from a reused request id)."""

from __future__ import annotations

import hashlib

from rgs.codec import canonical_json, to_jsonable


def sha256_hex(secret: str) -> str:
    """The stored form of a secret (API key, session token)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def request_hash(method: str, command: object, *, added: tuple[str, ...] = ()) -> str:
    """A fingerprint of a request, to tell a replay from a reused request id.

    ``added`` names fields the command gained in a later release: left out while empty, so a
    request first sent to the previous release and retried after the upgrade still matches.
    """
    data = to_jsonable(command)
    for name in added:
        if not data[name]:
            del data[name]
    return sha256_hex(method + "\n" + canonical_json(data))
