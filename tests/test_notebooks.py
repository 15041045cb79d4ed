"""Every notebook in ``notebooks/`` runs headless, top to bottom, without an error, the way
Jupyter runs it (the notebook's own folder as the working directory), and is stored with
the outputs of such a run."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "notebooks/ holds no notebook"


def test_the_notebooks_extra_brings_what_the_notebooks_tell_users_to_run() -> None:
    """Every notebook tells users to run ``jupyter lab`` (and ``jupyter nbconvert``) with
    the ``notebooks`` extra, which brings them; every extra a notebook names is declared."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"jupyterlab", "nbconvert", "ipykernel", "matplotlib"} <= {
        re.split(r"[<>=~!\[; ]", r)[0] for r in extras["notebooks"]
    }
    for path in NOTEBOOKS:
        named = [set(group.split(",")) for group in re.findall(r"dehla\[([\w,-]+)\]", path.read_text())]
        assert any("notebooks" in group for group in named) and "jupyter lab notebooks/" in path.read_text(), path.name
        assert all(group <= set(extras) for group in named), (path.name, named)


def error_outputs(nb: nbformat.NotebookNode) -> list[str]:
    return [
        f"cell {i}: {out.get('ename')}: {out.get('evalue')}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_with_outputs(path: Path) -> None:
    """Stored as executed top to bottom in one kernel: every code cell has its execution
    count (1, 2, 3, ... in order), some output, no error, and no path of this checkout."""
    nb = nbformat.read(path, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    counts = [cell.get("execution_count") for cell in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name} is not stored as executed top to bottom (execution counts {counts}); execute it and save it: "
        f"jupyter nbconvert --to notebook --execute --inplace notebooks/{path.name}"
    )
    assert any(cell.get("outputs") for cell in code), f"{path.name} is stored without outputs"
    assert not error_outputs(nb), error_outputs(nb)
    assert str(ROOT) not in nbformat.writes(nb), f"{path.name}'s outputs name this checkout's folder {ROOT}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_without_errors(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the training notebook trains the one-minute `small` config; here its seconds-long smoke run
    monkeypatch.setenv("DEHLA_CONFIG", "quick")
    nb = nbformat.read(path, as_version=4)
    # the notebook's folder as the working directory, as Jupyter runs it: no path relative to the repository root
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError on the first failing cell, with its traceback
    assert not error_outputs(nb), error_outputs(nb)
