"""The name a command was typed as, for its ``--help`` usage line and its error lines;
and a quiet stdout once its reader has gone (``| head``).

The same command runs as a console script (``dehla-arena``, installed by pip) or as a
module (``python -m agents.arena``); its messages name whichever the user typed, so a
line copied from them runs again.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO


def typed_command(module: str) -> str:
    """``dehla-arena`` when run as an installed console script, else ``python -m MODULE``."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if name.startswith("dehla-"):
        return name
    return f"python -m {module}"


def silence_stdout(out: TextIO | None = None) -> None:
    """After a broken pipe on ``out`` (default: stdout): point fd 1 at /dev/null, so the
    interpreter's final flush of the real stdout cannot fail with a traceback of its own
    ("Exception ignored ..."). Nothing happens when ``out`` is another stream."""
    stdout = sys.__stdout__
    if stdout is None or (out is not None and out is not stdout):
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


__all__ = ["silence_stdout", "typed_command"]
