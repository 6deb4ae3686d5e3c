"""Where the reference data the tests read lives: ``tests/data`` (provenance in its README)."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def data_file(*parts: str) -> Path:
    """Path of a file under ``tests/data``; fails naming the file when it is missing."""
    path = DATA_DIR.joinpath(*parts)
    if not path.is_file():
        raise FileNotFoundError(f"test data {path} is missing: it belongs in the repository "
                                f"(see tests/data/README.md)")
    return path
