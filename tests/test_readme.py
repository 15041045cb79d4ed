"""The README and the docs pages say what works: every Python code block of the README
runs as written, and every command of their shell blocks names a command, module or
script that exists and accepts its flags. The README is a front door: at most 300 lines,
its first code block the two set-up commands that CI runs."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = {path.relative_to(ROOT).as_posix(): path.read_text() for path in [ROOT / "README.md", *ROOT.glob("docs/*.md")]}
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)

#: the console scripts (pyproject.toml) and the module each runs
CONSOLE_SCRIPTS = {
    "dehla-arena": "agents.arena",
    "dehla-bench": "agents.bench",
    "dehla-play": "agents.play",
    "dehla-web": "agents.web",
    "dehla-replay": "dehla_env.replay",
    "dehla-train": "agents.train",
}


def test_the_readme_is_a_front_door() -> None:
    """At most 300 lines; the set-up commands come first, before any other code."""
    assert len(README.splitlines()) <= 300
    first = re.search(r"```(\w*)\n(.*?)```", README, re.S)
    assert first is not None and first.group(1) == "bash"
    lines = [line for line in first.group(2).splitlines() if line.strip()]
    assert len(lines) == 2, "two set-up commands: the main job, and the development extras with the tests"
    assert "dehla-arena" in lines[0] and "pytest" in lines[1]


def test_console_scripts_listed_here_are_the_packaged_ones() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    declared = dict(re.findall(r'^(dehla-[\w-]+) = "([\w.]+):main"', pyproject, re.M))
    assert {name: module.removesuffix(".cli") for name, module in declared.items()} == CONSOLE_SCRIPTS


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_block_runs_verbatim(index: int) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PYTHON_BLOCKS[index]], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]


def _commands() -> list[tuple[str, list[str]]]:
    cmds = []
    for page, text in PAGES.items():
        for block in re.findall(r"```bash\n(.*?)```", text, re.S):
            for line in block.replace("\\\n", " ").splitlines():
                for part in line.split("#", 1)[0].split("&&"):
                    words = shlex.split(part.strip())
                    if words and (words[0] == "python" or words[0] in CONSOLE_SCRIPTS):
                        cmds.append((page, words))
    return cmds


@pytest.mark.parametrize("page, command", _commands(), ids=lambda c: c if isinstance(c, str) else " ".join(c[:3]))
def test_shell_commands_exist_and_take_their_flags(page: str, command: list[str]) -> None:
    """Each command's module or script exists, and its flags parse: run with ``--help``
    appended (argparse prints help after checking the flags before it)."""
    if command[0] in CONSOLE_SCRIPTS:
        args = ["-m", CONSOLE_SCRIPTS[command[0]], *command[1:]]
    else:
        args = command[1:]
    if args[:2] in (["-m", "pytest"], ["-m", "sphinx"]) or args[0].startswith("../"):
        return  # the tests, the docs build, tools outside the repository
    while any("<" in a or a.isupper() and "/" not in a and len(a) > 3 for a in args[2:]):
        # a placeholder such as RUN_DIR or runs/dehla__1__<time>, and the flag before it
        i = next(i for i, a in enumerate(args) if i >= 2 and ("<" in a or a.isupper() and "/" not in a and len(a) > 3))
        del args[i - 1 if args[i - 1].startswith("--") else i : i + 1]
    out = subprocess.run([sys.executable, *args, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (page, command, out.stderr[-1000:])
