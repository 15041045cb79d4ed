"""The name a command was typed as, for its ``--help`` usage line and its error lines.

The same command runs as a console script (``dehla-arena``, installed by pip) or as a
module (``python -m agents.arena``); its messages name whichever the user typed, so a
line copied from them runs again.
"""

from __future__ import annotations

import sys
from pathlib import Path


def typed_command(module: str) -> str:
    """``dehla-arena`` when run as an installed console script, else ``python -m MODULE``."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if name.startswith("dehla-"):
        return name
    return f"python -m {module}"


__all__ = ["typed_command"]
