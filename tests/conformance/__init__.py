"""The R6 conformance sets the tests replay, each a folder of ``records.jsonl`` (R6
records) and ``expected.jsonl`` (the result object of each, by ``id``).

The public set ships here (``tests/conformance/public``), so every clone checks it. A
set kept beside the checkout, in ``../shared/conformance/NAME/`` (records held back from
the repository), is replayed too when it is there; a copy of the shipped set is not
replayed twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PUBLIC = Path(__file__).resolve().parent / "public"
BESIDE = Path(__file__).resolve().parents[3] / "shared" / "conformance"


def _files(folder: Path) -> tuple[bytes, bytes]:
    return (folder / "records.jsonl").read_bytes(), (folder / "expected.jsonl").read_bytes()


def conformance_sets() -> list[Path]:
    """The shipped public set, then every other complete set beside the checkout."""
    beside = sorted(BESIDE.iterdir()) if BESIDE.is_dir() else []
    complete = [d for d in beside if (d / "records.jsonl").is_file() and (d / "expected.jsonl").is_file()]
    return [PUBLIC, *(d for d in complete if _files(d) != _files(PUBLIC))]


def normalise(obj: dict[str, Any]) -> dict[str, Any]:
    """R6: an error's reason is free text; checkers compare only where it happened."""
    err = obj.get("error")
    if isinstance(err, dict):
        obj = dict(obj, error={"hand": err.get("hand"), "move": err.get("move")})
    return obj
