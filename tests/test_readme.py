"""The README and the docs pages say what works: every Python code block of the README
runs as written, and every command of their shell blocks names a command, module or
script that exists and accepts its flags. The README is a front door: at most 300 lines,
its first code block the two set-up commands that CI runs."""

from __future__ import annotations

import json
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
    """Every ``python ...`` or console-script command of the README's and the docs pages'
    shell blocks, as ``(page, argv)`` with placeholders (``RUN_DIR``, ``<time>``) and
    the flags before them taken out."""
    cmds = []
    for page, text in PAGES.items():
        for block in re.findall(r"```bash\n(.*?)```", text, re.S):
            for line in block.replace("\\\n", " ").splitlines():
                for part in line.split("#", 1)[0].split("&&"):
                    words = shlex.split(part.strip())
                    if words and (words[0] == "python" or words[0] in CONSOLE_SCRIPTS):
                        cmds.append((page, _without_placeholders(words)))
    return cmds


def _placeholder(word: str) -> bool:
    return "<" in word or (word.isupper() and "/" not in word and len(word) > 3)


def _without_placeholders(words: list[str]) -> list[str]:
    words = list(words)
    while any(_placeholder(w) for w in words[2:]):
        i = next(i for i, w in enumerate(words) if i >= 2 and _placeholder(w))
        del words[i - 1 if words[i - 1].startswith("--") else i : i + 1]
    return words


def _by_entry() -> dict[str, list[tuple[str, list[str]]]]:
    """The commands grouped by what runs them: a module's ``main(argv)`` or a script."""
    groups: dict[str, list[tuple[str, list[str]]]] = {}
    for page, words in _commands():
        if words[0] in CONSOLE_SCRIPTS:
            entry, argv = CONSOLE_SCRIPTS[words[0]], words[1:]
        elif words[1] == "-m":
            entry, argv = words[2], words[3:]
        else:
            entry, argv = words[1], words[2:]
        if entry in ("pytest", "sphinx", "mypy") or entry.startswith("../"):
            continue  # the tests, the docs build, the type checker, tools outside the repository
        groups.setdefault(entry, []).append((page, argv))
    return groups


# Runs each command's main(argv + ["--help"]) in one interpreter per module: argparse
# checks the flags before --help and then exits 0; a bad flag or value exits 2.
_DRIVER = """
import contextlib, importlib, io, json, sys
entry, commands = sys.argv[1], json.loads(sys.argv[2])
module = importlib.import_module(entry)
main = getattr(module, "main", None) or importlib.import_module(entry + ".cli").main
bad = []
for page, argv in commands:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main([*argv, "--help"])
    except SystemExit as stop:
        code = stop.code
    if code not in (0, None):
        bad.append([page, argv, out.getvalue()[-600:]])
print(json.dumps(bad))
"""


@pytest.mark.parametrize("entry", sorted(_by_entry()))
def test_shell_commands_exist_and_take_their_flags(entry: str) -> None:
    """Each command's module or script exists, and its flags parse."""
    commands = _by_entry()[entry]
    if entry.endswith(".py"):  # a script: run each distinct command with --help
        for page, argv in {(p, tuple(a)) for p, a in commands}:
            out = subprocess.run(
                [sys.executable, entry, *argv, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
            )
            assert out.returncode == 0, (page, entry, argv, out.stderr[-1000:])
        return
    out = subprocess.run(
        [sys.executable, "-c", _DRIVER, entry, json.dumps(commands)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.splitlines()[-1]) == []
