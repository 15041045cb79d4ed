"""The house rules a reader relies on (STYLE.md): layers point one way, no import
circles, ruleset behaviour from typed facts in ``rules.py`` only."""

from __future__ import annotations

import ast
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
    """Every project module ``name`` imports, at any depth of the file (lazy imports too,
    and imports by string: ``importlib.import_module("...")``, ``__import__("...")``)."""
    return _imports_in(ast.parse(path.read_text()), name, path.name == "__init__.py")


def _imports_in(tree: ast.AST, name: str, is_package: bool = False) -> set[str]:
    package = name if is_package else name.rpartition(".")[0]
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
        elif isinstance(node, ast.Call) and ast.unparse(node.func).rpartition(".")[2] in _BY_STRING and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
    return {m for m in found if m.split(".")[0] in PACKAGES}


_BY_STRING = ("import_module", "__import__")  # the calls that import a module named by a string


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


def test_the_import_graph_sees_imports_made_by_string() -> None:
    code = "import importlib\nm = importlib.import_module('dehla_env.vector.observe')\n__import__('agents.play')\n"
    assert _imports_in(ast.parse(code), "dehla_env.x") == {"dehla_env.vector.observe", "agents.play"}


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


def _ruleset_words() -> set[str]:
    """The ruleset names and the string values of every option of every preset: what a
    comparison outside ``rules.py`` would test instead of a typed fact."""
    from dehla_env.rules import PRESETS, option_specs

    words = set(PRESETS)
    for name in PRESETS:
        for spec in option_specs(name).values():
            words.update(c for c in spec.choices or () if isinstance(c, str))
    return words


def _string_constants(node: ast.expr) -> list[str]:
    """The string literals a comparison operand is made of (a literal, or a tuple, list
    or set of literals, as in ``x in ("dehla", "court-piece")``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [v for elt in node.elts for v in _string_constants(elt)]
    return []


def _name_comparisons(tree: ast.AST, words: set[str]) -> list[tuple[int, str]]:
    """Each comparison (``==``, ``!=``, ``in``, ``not in``, ``match``/``case``) of a value
    with a ruleset name or option string, by line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            literals = [v for operand in [node.left, *node.comparators] for v in _string_constants(operand)]
        elif isinstance(node, ast.MatchValue):
            literals = _string_constants(node.value)
        else:
            continue
        hits = sorted(set(literals) & words)
        if hits:
            found.append((node.lineno, ", ".join(hits)))
    return found


def test_ruleset_behaviour_comes_from_typed_facts_only() -> None:
    """No comparison with a ruleset name or an option's string value outside
    ``rules.py``: ruleset behaviour comes from the typed facts computed there. Read on
    the syntax tree, so a string in a message or a docstring is not a comparison."""
    words = _ruleset_words()
    offenders = []
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            if path.name == "rules.py" and path.parent.name == "dehla_env":
                continue
            for line, what in _name_comparisons(ast.parse(path.read_text()), words):
                offenders.append(f"{path.relative_to(ROOT)}:{line}: compares with {what}")
    assert offenders == []


def test_the_comparison_check_sees_what_it_looks_for() -> None:
    words = _ruleset_words()
    code = (
        "if rules.name == 'court-piece': pass\n"
        "ok = trump in ('chosen', 'open')\n"
        "match name:\n    case 'coat-pees': pass\n"
        "msg = 'dehla'\n"  # a string that is not compared
        "same = entry.name == 'policy'\n"  # an agent's name, not a ruleset's
    )
    assert [line for line, _ in _name_comparisons(ast.parse(code), words)] == [1, 2, 4]


AGENT_LAYERS = {
    # package -> the agents packages it may import (besides itself and dehla_env)
    "base": set(),
    "gc_pause": set(),
    "user_files": set(),
    "nets": {"base", "user_files"},  # a policy file from a user is read as untrusted
    "bots": {"base", "nets"},
    "search": {"base", "nets", "bots", "gc_pause"},
    "distributed": set(),
    "registry": {"base", "nets", "bots", "search"},
    "envs": {"registry"},
    # the library under the applications: deals and seeds, the one play loop, duels, statistics
    "playing": {"base", "registry", "distributed"},
}
#: the applications, by package (the trainer is ``agents/train.py`` over ``agents/training``):
#: each stands on the layers above and imports no other application's modules
APPLICATIONS = {
    "arena": "arena",
    "bench": "bench",
    "train": "trainer",
    "training": "trainer",
    "web": "web",
    "play": "terminal game",
}
#: imports between applications allowed, each with why (none: what two apps share lives below them)
CROSS_APPLICATION: dict[str, str] = {}


def _agent_package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_bot_layers_point_one_way() -> None:
    """Networks below bots below search below the registry below the play library;
    none of them imports an application (:data:`APPLICATIONS`)."""
    offenders = []
    for module, deps in _graph().items():
        package = _agent_package(module)
        if not module.startswith("agents.") or package not in AGENT_LAYERS:
            continue
        allowed = AGENT_LAYERS[package] | {package}
        offenders += [f"{module} -> {d}" for d in deps if d.startswith("agents.") and _agent_package(d) not in allowed]
    assert offenders == []


def test_no_application_imports_another() -> None:
    """What two applications share lives in a layer below them (the play loop, the
    deals, the statistics in :mod:`agents.playing`), never in one of them."""
    graph = _graph()
    offenders = []
    for module, deps in graph.items():
        app = APPLICATIONS.get(_agent_package(module))
        if module.startswith("agents.") and app is not None:
            others = {d for d in deps if APPLICATIONS.get(_agent_package(d), app) != app}
            offenders += [f"{module} -> {d}" for d in sorted(others) if f"{module} -> {d}" not in CROSS_APPLICATION]
    assert offenders == []
    assert set(AGENT_LAYERS) | set(APPLICATIONS) >= {_agent_package(m) for m in graph if m.startswith("agents.")}


def test_every_package_says_what_it_holds() -> None:
    for init in sorted((ROOT / "agents").rglob("__init__.py")) + sorted((ROOT / "dehla_env").rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and len(doc) > 80, f"{init.relative_to(ROOT)} has no docstring saying what it holds"


RULE_FACT_ENUMS = ("TrumpMaking", "HandScoring", "MatchScoring")


def _enum_compared(test: ast.expr) -> tuple[str, str] | None:
    """``(subject, enum)`` when ``test`` is ``subject is Enum.MEMBER`` (or ``==``) for a
    rule-fact enum, else None."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is | ast.Eq)):
        return None
    right = test.comparators[0]
    if isinstance(right, ast.Attribute) and isinstance(right.value, ast.Name) and right.value.id in RULE_FACT_ENUMS:
        return ast.unparse(test.left), right.value.id
    return None


def _dispatch_chains(tree: ast.AST) -> list[int]:
    """Lines where an ``if``/``elif`` chain, or a run of sibling ``if`` statements,
    compares one subject with two or more members of a rule-fact enum: a dispatch that
    should be a ``match`` with ``assert_never``, so mypy names it when a mode is added."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            here = _enum_compared(node.test)
            nxt = node.orelse[0] if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) else None
            if here and nxt is not None and _enum_compared(nxt.test) == here:
                found.append(node.lineno)
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for a, b in zip(stmts, stmts[1:]):
                if isinstance(a, ast.If) and isinstance(b, ast.If):
                    ca, cb = _enum_compared(a.test), _enum_compared(b.test)
                    if ca and ca == cb:
                        found.append(a.lineno)
    return sorted(set(found))


def test_dispatch_on_a_rule_fact_is_an_exhaustive_match() -> None:
    offenders = []
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            offenders += [f"{path.relative_to(ROOT)}:{line}" for line in _dispatch_chains(ast.parse(path.read_text()))]
    assert offenders == []


def test_the_dispatch_check_sees_chains() -> None:
    code = (
        "if r.match_scoring is MatchScoring.KOTS:\n    a()\nelif r.match_scoring is MatchScoring.GAP:\n    b()\n"
        "def f():\n    if ms is MatchScoring.KOTS:\n        return 1\n"
        "    if ms is MatchScoring.STREAK:\n        return 2\n"
        "if r.trump_making is TrumpMaking.CLOSED:\n    c()\n"  # one fact tested: not a dispatch
    )
    assert _dispatch_chains(ast.parse(code)) == [1, 6]


#: modules that keep card and seat arithmetic inline, and why: numba kernels cannot call
#: the helpers, and the engine's card play, the trick rule and the solver's and the
#: search's inner loops run millions of times, where a function call per card costs a
#: measurable share
INLINE_ARITHMETIC = {
    "dehla_env/engine/hand.py": "the reference engine's card play",
    "dehla_env/tricks.py": "the trick rule, run at every trick",
    "dehla_env/vector/observe.py": "the row writer, which numba compiles",
    "agents/search/solver.py": "the exact solver's inner loop",
    "agents/search/pimc.py": "the search's playout loop",
}
_SEAT_NAMES = ("seat", "human", "taker", "leader", "dealer", "winner", "maker", "bidder", "s", "lw", "me")


def _raw_card_and_seat_arithmetic(tree: ast.AST) -> list[tuple[int, str]]:
    """``x // NUM_RANKS``, ``x % 13`` (a card's suit and rank) and ``seat % 2`` (a seat's
    side) written out instead of :func:`dehla_env.cards.suit_of`, :func:`rank_of` and
    :func:`dehla_env.seats.side_of`."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.FloorDiv | ast.Mod):
            continue
        right, left = node.right, ast.unparse(node.left)
        if (isinstance(right, ast.Name) and right.id == "NUM_RANKS") or (
            isinstance(right, ast.Constant) and right.value == 13
        ):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node.op, ast.Mod) and isinstance(right, ast.Constant) and right.value == 2:
            last = left.rpartition(".")[2]
            if last in _SEAT_NAMES or last.endswith("_seat"):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_cards_and_seats_are_read_through_their_helpers() -> None:
    offenders = []
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            rel = str(path.relative_to(ROOT))
            if rel in INLINE_ARITHMETIC or rel in ("dehla_env/cards.py", "dehla_env/seats.py"):
                continue
            offenders += [
                f"{rel}:{line}: {text}" for line, text in _raw_card_and_seat_arithmetic(ast.parse(path.read_text()))
            ]
    assert offenders == []


#: modules whose calls may pass more than five positional arguments, and why: the inner
#: loops of the exact solver and of the search's playouts, where keyword arguments cost
#: a measurable share of a decision
POSITIONAL_HOT_LOOPS = {
    "agents/search/solver.py": "the exact solver's inner loop",
    "agents/search/pimc.py": "the search's playout loop",
}
MAX_POSITIONAL = 5


def _long_positional_calls(tree: ast.AST) -> list[tuple[int, str]]:
    """Calls with more than :data:`MAX_POSITIONAL` positional arguments (a ``*args``
    unpacking is not counted: its length is not in the source)."""
    return [
        (node.lineno, ast.unparse(node.func))
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and sum(not isinstance(a, ast.Starred) for a in node.args) > MAX_POSITIONAL
    ]


def test_no_call_passes_more_than_five_positional_arguments() -> None:
    """Past five, arguments are named: a call reads without its signature beside it, and
    a swapped pair of same-typed arguments cannot pass unseen."""
    offenders = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            if rel not in POSITIONAL_HOT_LOOPS:
                calls = _long_positional_calls(ast.parse(path.read_text()))
                offenders += [f"{rel}:{line}: {func}(...)" for line, func in calls]
    assert offenders == []


def test_the_positional_check_sees_long_calls() -> None:
    code = "f(1, 2, 3, 4, 5)\ng(1, 2, 3, 4, 5, 6)\nh(*xs, 1, 2, 3, 4, 5)\nk(1, 2, 3, 4, 5, x=6)\n"
    assert _long_positional_calls(ast.parse(code)) == [(2, "g")]


def test_the_vocabulary_check_sees_raw_arithmetic() -> None:
    code = "a = card // NUM_RANKS\nb = c % 13\nc = view.seat % 2\nd = index % 2\ne = bits >> s & 1\n"
    assert [line for line, _ in _raw_card_and_seat_arithmetic(ast.parse(code))] == [1, 2, 3]


def test_the_ruleset_page_names_every_place_a_new_mode_touches() -> None:
    """docs/adding-a-ruleset.md lists the files with an exhaustive match on a rule fact;
    a new such file must be named there, or a newcomer would miss it."""
    page = (ROOT / "docs" / "adding-a-ruleset.md").read_text()
    sites = set()
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "assert_never":
                    sites.add(str(path.relative_to(ROOT)))
    assert sites and [s for s in sorted(sites) if f"`{s}`" not in page] == []
