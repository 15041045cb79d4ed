"""Saving browser games as R6 records, so that human games become data.

Each finished or abandoned game is one JSON Lines file ``<id>.jsonl`` holding one R6
record (RULES.md R6: ``id``, ``rules``, ``options``, ``first_dealer``, ``hands`` with
each hand's ``deck`` text and ``moves``, ``draw:XX`` included) plus extra fields that
replay ignores: ``agents`` (the spec per seat, ``"human"`` for the person),
``human_seat``, ``seed`` and, where the page showed one, its ``commitment`` (so
``dehla-replay --check-seed`` confirms the deals were fixed before play), ``result``
(``finished`` or ``abandoned``), ``winner`` and the times. ``python -m dehla_env.replay
FILE`` reads it back and plays it again; a folder of them concatenates into one data
set (``cat DIR/*.jsonl``).

The default folder is ``$DEHLA_RECORD_DIR`` if set, else ``$XDG_DATA_HOME/dehla/games``
(``~/.local/share/dehla/games``): outside the source tree, so records survive
reinstalls and are not committed by accident.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from agents.web.game import WebGame


def default_record_dir() -> Path:
    """``$DEHLA_RECORD_DIR``, else ``$XDG_DATA_HOME/dehla/games`` (see the module docstring)."""
    env = os.environ.get("DEHLA_RECORD_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "dehla" / "games"


def record_of(game: WebGame, result: str) -> dict[str, Any]:
    """The game's R6 record with its extra fields (``result``: finished or abandoned)."""
    match = game.match
    return {
        "id": game.id,
        "rules": game.rules.name,
        "options": game.rules.option_dict(),
        "first_dealer": match.first_dealer,
        "hands": [{"deck": h.deck, "moves": list(h.moves)} for h in game.hands],
        "agents": list(game.specs),
        "human_seat": game.human,
        "seed": game.seed,
        **({"commitment": game.commitment} if game.commitment else {}),
        "result": result,
        "winner": match.winner,
        "started": utc_text(game.created),
        "saved": utc_text(),
        "source": "agents.web",
    }


def save_record(
    game: WebGame, folder: Path, result: str, record: dict[str, Any] | None = None, name: str | None = None
) -> Path:
    """Write the game's record (``record``, else :func:`record_of`) to ``folder/<name or
    id>.jsonl`` (:func:`write_atomic`) and mark the game saved."""
    path = folder / f"{name or game.id}.jsonl"
    write_atomic(path, json.dumps(record_of(game, result) if record is None else record) + "\n")
    game.saved_to = str(path)
    game.ended = result
    return path


def keep_record(game: WebGame, folder: Path, result: str, record: dict[str, Any] | None = None) -> None:
    """:func:`save_record`, where a full disk or a bad folder is logged, never the player's
    problem (the game then counts as saved, so it is not tried again on every request)."""
    try:
        save_record(game, folder, result, record)
    except OSError as e:
        game.ended = result
        logging.getLogger("agents.web").error("could not save the record of %s in %s: %s", game.id, folder, e)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically and flushed to disk (a reader never sees half
    a file, a crash right after loses nothing), making its folder if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def utc_text(t: float | None = None) -> str:
    """``t`` (default: now) as ISO 8601 UTC text."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if t is None else t))


__all__ = ["default_record_dir", "keep_record", "record_of", "save_record", "utc_text", "write_atomic"]
