"""Every Python code block of the README runs as written, and every command of its
shell blocks names a module or script that exists and accepts its flags."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
SHELL_BLOCKS = re.findall(r"```bash\n(.*?)```", README, re.S)


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_block_runs_verbatim(index: int) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PYTHON_BLOCKS[index]], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]


def _commands() -> list[list[str]]:
    cmds = []
    for block in SHELL_BLOCKS:
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("python "):
                cmds.append(shlex.split(line))
    return cmds


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c[1:3]))
def test_shell_commands_exist_and_take_their_flags(command: list[str]) -> None:
    """Each command's module or script exists, and its flags parse: run with ``--help``
    appended (argparse prints help after checking the flags before it)."""
    args = command[1:]
    if args[:2] == ["-m", "pytest"] or args[0].startswith("../"):  # the tests; tools outside the repo
        return
    while any("<" in a for a in args):  # a placeholder such as runs/dehla__1__<time>, and its flag
        i = next(i for i, a in enumerate(args) if "<" in a)
        del args[i - 1 if i and args[i - 1].startswith("--") else i : i + 1]
    out = subprocess.run([sys.executable, *args, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (command, out.stderr[-1000:])
