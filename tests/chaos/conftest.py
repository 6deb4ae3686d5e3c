"""Chaos fixtures reuse the end-to-end server helpers (real subprocesses on loopback)."""

from __future__ import annotations

import sys
from pathlib import Path

# The e2e helpers are a plain module next to their tests, not a package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
