"""The repository's scripts as modules, for the tests that call into them: a benchmark,
an example or ``results/tables.py`` is a file, not a package, so it is loaded by path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(path: str, name: str | None = None) -> ModuleType:
    """The file at ``path`` (from the repository's root) as a module named ``name`` (its
    stem by default), registered in ``sys.modules`` first: a dataclass or a pickled
    object of the script looks its module up there."""
    file = ROOT / path
    name = name or file.stem
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


__all__ = ["ROOT", "load_script"]
