"""Sphinx configuration: the guide pages are Markdown (MyST), the API pages come from
the docstrings (autodoc), the rule book is the package's own ``dehla_env/RULES.md``.

    pip install -e ".[docs]"
    python -m sphinx -W -b html docs docs/_build/html
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dehla_env import __version__  # noqa: E402

project = "dehla"
author = "the dehla authors"
copyright = f"{date.today().year}, {author}"
version = release = __version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_mock_imports = ["torch", "starlette", "uvicorn"]
html_theme = "furo"
html_title = f"dehla {__version__}"
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing", "myst.header"]
nitpicky = False
