"""Chaos fixtures reuse the end-to-end server helpers (real subprocesses on loopback); the chaos
test's own machinery is chaos_support.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The e2e helpers are a plain module next to their tests, not a package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

# The money check's asserts (chaos_support.check_money) report their values as a test's do.
pytest.register_assert_rewrite("chaos_support")
