"""The house rules a reader relies on (STYLE.md): layers point one way, no import
circles, ruleset behaviour from typed facts in ``rules.py`` only."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dehla_env", "agents")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path) -> set[str]:
    """Every project module ``name`` imports, at any depth of the file (lazy imports too)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph = {}
    for name, path in mods.items():
        graph[name] = {m for m in _imports(name, path) if m in mods and m != name}
    return graph


def test_the_environment_package_never_imports_the_bots() -> None:
    offenders = [
        m for m, deps in _graph().items() if m.startswith("dehla_env") and any(d.startswith("agents") for d in deps)
    ]
    assert offenders == []


def test_importing_every_environment_module_loads_no_bot_module() -> None:
    mods = sorted(m for m in _modules() if m.startswith("dehla_env") and not m.endswith("__main__"))
    code = f"import importlib, sys\nfor m in {mods!r}: importlib.import_module(m)\n" + (
        "bad = sorted(m for m in sys.modules if m == 'agents' or m.startswith('agents.'))\nassert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_no_import_circles() -> None:
    """Package ``__init__`` modules re-export their children; a child importing its own
    package's ``__init__`` is the usual Python layering, not a circle."""
    graph = _graph()

    def edges(m: str) -> set[str]:
        return {d for d in graph[m] if not m.startswith(d + ".")}

    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in sorted(edges(m)):
            if state.get(d) == 1:
                return stack[stack.index(d) :] + [d]
            if d not in state:
                cycle = visit(d)
                if cycle:
                    return cycle
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m)
            assert cycle is None, " -> ".join(cycle)


_COMPARISON = re.compile(r"\.name (==|!=|in) |\b(trump|scoring|match|episode) (==|!=|in) [\(\"']")
_NAMES = re.compile(
    r"[=!]= ?[\"'](dehla|dehla-direct|court-piece|coat-pees|first-void|chosen|open|closed|named|double-sar)[\"']"
)


def test_ruleset_behaviour_comes_from_typed_facts_only() -> None:
    """No ruleset-name or option-string comparison outside ``rules.py`` (R-facts are
    typed fields computed once there)."""
    offenders = []
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    for path in files:
        if path.name == "rules.py" and path.parent.name == "dehla_env":
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if _COMPARISON.search(code) or _NAMES.search(code):
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert offenders == []


def test_the_engine_and_the_replay_need_neither_gymnasium_nor_pettingzoo() -> None:
    """The rules engine and ``python -m dehla_env.replay`` run with numpy alone; the
    environments are imported when first used."""
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = None\nsys.modules['pettingzoo'] = None\n"
        "import dehla_env, io\n"
        "from dehla_env.replay import main\n"
        "import dehla_env.records, dehla_env.deals, dehla_env.demo\n"
        "m = dehla_env.MatchState(dehla_env.make_rules('dehla'), 0)\n"
        "assert 'dehla_env.env' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
