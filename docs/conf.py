"""Sphinx configuration: the API pages come from the docstrings (autodoc); the README,
the rule book and the recipes are included as Markdown (MyST).

    python -m sphinx -W -b html docs docs/_build/html
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

project = "dehla"
author = "the dehla authors"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_mock_imports = ["torch", "starlette", "uvicorn"]
html_theme = "alabaster"
myst_heading_anchors = 3
suppress_warnings = ["myst.xref_missing", "myst.header"]
nitpicky = False

# The rule book lives beside the repository (../shared/RULES.md, the authority): a copy
# is made for the site when it is there, a pointer page otherwise.
_rules = ROOT.parent / "shared" / "RULES.md"
_target = Path(__file__).parent / "rules.md"
if _rules.exists():
    shutil.copyfile(_rules, _target)
elif not _target.exists():
    _target.write_text("# Rules\n\nThe rule book is `RULES.md` in the project's shared folder.\n")
