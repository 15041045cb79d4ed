"""What a newcomer meets: the repository speaks to users (no development-history words),
the rule book ships with the package and holds every rule number the code cites, the
package names its version and its commands as typed, the shipped configs load by name,
and the arena ends with a verdict in plain words."""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

import dehla_env
from agents.arena import run_duel
from agents.training.runs import config_file, shipped_config_names
from dehla_env.rules import make_rules

ROOT = Path(__file__).resolve().parents[1]
RULE_BOOK = (ROOT / "dehla_env" / "RULES.md").read_text()
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".json", ".jsonl", ".ipynb", ".js", ".html", ".css", ".rst"}
TEXT_SUFFIXES |= {".cfg", ".txt", ".cff", ".sh"}


def _repository_text_files() -> list[Path]:
    """Every file git tracks or would track (untracked, not ignored), read as text."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True
    )
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    names = [ROOT / line for line in out.stdout.splitlines()]
    return [p for p in names if p.is_file() and (p.suffix in TEXT_SUFFIXES or p.name in ("run", "LICENSE"))]


# Built from pieces so that this file does not match itself.
_HISTORY = [
    ("a session stop", re.compile(r"\b" + "st" + r"ops? \d+", re.I)),
    ("the development machine", re.compile(r"\b(this|these) " + "VM" + r"s?\b")),
    ("an issue number", re.compile(r"\b" + "iss" + r"ues? #?\d+", re.I)),
    ("a git recipe", re.compile(r"\bgit " + "show" + r"\b")),
    ("a commit", re.compile(r"\b" + "comm" + r"its? [0-9a-f]{7,40}\b")),
]
_HEX = re.compile(r"(?<![\w/.#+=-])[0-9a-f]{7,12}(?![\w/.+=-])")
_NOTEBOOK_NOISE = re.compile(r'"id": "[0-9a-f]+"|"image/[\w+.-]+": "[^"]*"')  # cell ids, pictures


def _history_words(path: Path) -> list[str]:
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        return []
    if path.suffix == ".ipynb":
        text = _NOTEBOOK_NOISE.sub("", text)
    found = []
    for i, line in enumerate(text.splitlines(), 1):
        for what, pattern in _HISTORY:
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{i}: {what}: {line.strip()[:100]}")
        if path.suffix in (".md", ".py", ".yaml", ".rst", ".ipynb"):
            for token in _HEX.findall(line):
                if re.search(r"\d", token) and re.search(r"[a-f]", token):
                    found.append(f"{path.relative_to(ROOT)}:{i}: a commit hash? {token}: {line.strip()[:100]}")
    return found


def test_no_development_history_words_anywhere_in_the_repository() -> None:
    """Code, comments, docs, configs, notebooks and tests speak to users: no session
    stops, no development machine, no issue numbers, no commit hashes or git recipes."""
    me = Path(__file__).resolve()
    offenders = [hit for path in _repository_text_files() if path.resolve() != me for hit in _history_words(path)]
    assert offenders == [], "\n".join(offenders[:40])


def test_the_history_check_catches_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "notes.md"
    bad.write_text("Measured in " + "st" + "op 39 on this " + "VM; see commit " + "39a951e.\n")
    bad_path = ROOT / "notes.md"  # relative_to(ROOT) needs a path under the root
    try:
        bad_path.write_text(bad.read_text())
        assert len(_history_words(bad_path)) >= 3
    finally:
        bad_path.unlink()


# ------------------------------------------------------------------ the rule book
_RULE = re.compile(r"(?<![\w.])R(\d+)((?:\.\d+)?[a-z]?)\b")


def _rule_numbers(text: str) -> set[str]:
    return {f"R{major}{minor}" for major, minor in _RULE.findall(text)}


def _rules_defined(book: str) -> set[str]:
    """The numbers the rule book defines: its sections (``## R1.``), its rules
    (``- **R1.5 ...**``) and their lettered items (``- a)`` under R2.4 is R2.4a)."""
    defined: set[str] = set()
    current = None
    for line in book.splitlines():
        head = re.match(r"(?:#+ |- \*\*)(R\d+(?:\.\d+)?[a-z]?)\b", line)
        if head:
            current = head.group(1)
            defined.add(current)
            continue
        item = re.match(r"\s+- ([a-z])\)", line)
        if item and current:
            defined.add(current + item.group(1))
    return defined


def test_the_rule_book_ships_with_the_package() -> None:
    text = (resources.files("dehla_env") / "RULES.md").read_text()
    assert text == RULE_BOOK and "R1.5" in text
    assert '"dehla_env" = ["RULES.md"' in (ROOT / "pyproject.toml").read_text()


#: a source cited by its number in the authority's folder of sources: ``seed 003``, ``(seeds 002, 004)``
_SOURCE_NUMBER = re.compile(r"\(?(seeds?|\d{3}(?:'s)?)[,;:)]*")


def test_the_rule_book_is_in_step_with_the_authority() -> None:
    """The project's shared rule book is the authority; the package carries its rules word
    for word (line breaks aside). Only the citations may differ: the authority may cite a
    source by its number in a folder of sources kept beside it (``seed 003``), the package
    cites it by the name its introduction lists (``the Dutch guide``)."""
    authority = ROOT.parent / "shared" / "RULES.md"
    if not authority.exists():
        pytest.skip("the shared rule book is not beside this checkout")
    theirs, ours = (book[book.index("## R0.") :].split() for book in (authority.read_text(), RULE_BOOK))
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, theirs, ours, autojunk=False).get_opcodes():
        if tag != "equal":
            cited = all(_SOURCE_NUMBER.fullmatch(w) for w in theirs[i1:i2]) and "guide" in " ".join(ours[j1:j2])
            assert cited, (
                f"the rule book differs from the authority: {' '.join(theirs[i1:i2])!r} -> {' '.join(ours[j1:j2])!r}"
            )
    assert "seeds/" not in RULE_BOOK  # the package's book names its sources, not a folder the repository lacks


def test_every_rule_number_cited_in_code_tests_and_pages_is_in_the_rule_book() -> None:
    defined = _rules_defined(RULE_BOOK)
    places = [*ROOT.glob("dehla_env/**/*.py"), *ROOT.glob("agents/**/*.py"), *ROOT.glob("tests/*.py")]
    places += [*ROOT.glob("agents/web/static/*"), *ROOT.glob("docs/*.md"), ROOT / "README.md"]
    missing = {}
    for path in places:
        if path.is_file():
            unknown = _rule_numbers(path.read_text()) - defined
            if unknown:
                missing[str(path.relative_to(ROOT))] = sorted(unknown)
    assert missing == {}


# ------------------------------------------------------------------ the package
def test_the_version_is_one_number_everywhere() -> None:
    version = dehla_env.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert f"## [{version}]" in (ROOT / "CHANGELOG.md").read_text()
    assert f"version: {version}" in (ROOT / "CITATION.cff").read_text()
    import agents

    assert agents.__version__ == version
    for marker in ("py.typed",):
        assert (ROOT / "dehla_env" / marker).exists() and (ROOT / "agents" / marker).exists()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


@pytest.mark.parametrize(
    "module, entry, script",
    [
        ("agents.arena", "agents.arena.cli", "dehla-arena"),
        ("agents.train", "agents.train", "dehla-train"),
        ("dehla_env.replay", "dehla_env.replay", "dehla-replay"),
    ],
)
def test_commands_name_themselves_as_typed(module: str, entry: str, script: str) -> None:
    """``--help`` shows the command the user typed: the console script, or ``python -m``."""
    as_module = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60)
    assert as_module.returncode == 0 and f"python -m {module}" in as_module.stdout.splitlines()[0]
    # what the console script's wrapper does: argv[0] is the script, then main()
    code = f"import sys; sys.argv = [{script!r}, '--help']; from {entry} import main; sys.exit(main())"
    as_script = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert as_script.returncode == 0 and as_script.stdout.splitlines()[0].startswith(f"usage: {script}")


def test_the_shipped_configs_load_by_name() -> None:
    names = shipped_config_names()
    assert {"quick", "small", "dehla", "dehla-chosen", "dehla-direct", "court-piece", "coat-pees"} <= set(names)
    for name in names:
        assert config_file(name).is_file() and config_file(f"{name}.yaml") == config_file(name)
        assert config_file(name) == ROOT / "configs" / f"{name}.yaml"  # in a clone: the root's configs/
    assert config_file("no-such-config") == Path("no-such-config")


@pytest.mark.parametrize("name", shipped_config_names())
def test_every_shipped_config_is_a_valid_set_of_trainer_settings(name: str) -> None:
    """A typo in a config (a misspelt key, a value of the wrong type) fails here, not
    minutes into a user's run."""
    from agents.train import Args
    from agents.training.runs import load_settings

    settings = load_settings(Args, config_file(name), [])
    assert settings.run_name == name and make_rules(settings.rules, settings.rule_options).players in (4, 6)


def test_the_top_level_train_py_runs_the_trainer_on_a_config_of_the_top_level_configs() -> None:
    out = subprocess.run(
        [sys.executable, "train.py", "--config", "configs/dehla.yaml", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout.startswith("usage: python train.py"), out.stderr[-1000:]


def test_the_wheel_lists_every_package_and_installs_the_configs_as_agents_configs() -> None:
    """pyproject.toml lists the packages rather than finding them, so that the root's
    configs/ (the one copy) is installed as the package data ``agents/configs``: the list
    is every folder of the code with an ``__init__.py``, and that one."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    inits = [*ROOT.glob("dehla_env/**/__init__.py"), *ROOT.glob("agents/**/__init__.py")]
    packages = {init.parent.relative_to(ROOT).as_posix().replace("/", ".") for init in inits}
    missing = packages - set(setuptools["packages"])
    assert not missing, f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml"
    assert sorted(setuptools["packages"]) == sorted(packages | {"agents.configs"})
    assert setuptools["package-dir"] == {"agents.configs": "configs"}
    assert setuptools["package-data"]["agents.configs"] == ["*.yaml"] and not (ROOT / "agents" / "configs").exists()


# ------------------------------------------------------------------ the arena's verdict
def test_the_arena_says_in_plain_words_who_is_stronger() -> None:
    rules = make_rules("dehla")
    strong = run_duel(rules, "hard", "random", deals=40, seed=7)
    assert strong.verdict().startswith("A (hard) wins ") and "stronger than B" in strong.verdict()
    weak = run_duel(rules, "random", "hard", deals=40, seed=7)
    assert "weaker than B" in weak.verdict()
    level = run_duel(rules, "easy", "easy", deals=10, seed=7)  # an agent against itself scores exactly 0.5
    assert "no clear difference" in level.verdict() and "0.500" in level.verdict()
    table = strong.table()
    assert table.rstrip().endswith(strong.verdict()) and "deals the cards decided:" in table
