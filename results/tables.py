"""Markdown tables from the result records, written into marked blocks of the docs.

The figures of this project (the shipped policies against ``hard``, the search specs,
the speed ratios, the experiments that did not ship) live as records in
``results/*.json``, one record per measured result with the command that reproduces
it. Prose that copies a figure by hand drifts from it; so every table of figures in
``README.md`` and ``docs/*.md`` sits between two marker lines::

    <!-- results:shipped-policies -->
    ...generated table...
    <!-- /results:shipped-policies -->

and is generated from the records by this script, stdlib only, so it runs anywhere::

    python results/tables.py            # rewrite every marked block from the records
    python results/tables.py --check    # exit 1, naming each block that differs

``tests/test_results.py`` runs the check in-process, so a hand edit inside a block, or a
record changed without regenerating, fails the tests.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from dehla_env.rules import make_rules

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent
#: the published reference ladders: package data of the benchmark, read as they ship
LADDERS = ROOT / "agents" / "playing" / "data" / "ladder.json"

#: one result as read from JSON (the fields are described in ``docs/results.md``)
Record = dict[str, Any]

#: the scalar search every search figure is compared with head to head
REFERENCE = "search:k=48,depth=5,budget_ms=100"

_OPEN = re.compile(r"^<!-- results:([a-z0-9-]+) -->\s*$")
_CLOSE = re.compile(r"^<!-- /results:([a-z0-9-]+) -->\s*$")


class BlockError(ValueError):
    """A marked block that cannot be rewritten: unknown name, or no closing marker."""


# ---------------------------------------------------------------------- the records
def load(name: str) -> dict[str, Any]:
    """The parsed ``results/NAME.json`` (``shipped``, ``search``, ``findings``, ``speed``)."""
    data: dict[str, Any] = json.loads((RESULTS / f"{name}.json").read_text())
    return data


def all_records() -> dict[str, Record]:
    """Every result record of every file by id, so that a table can borrow a record
    from another file (a findings group shows the shipped figure it is compared with)."""
    by_id: dict[str, Record] = {}
    for name in ("shipped", "search", "findings", "speed"):
        for record in load(name)["records"]:
            by_id[record["id"]] = record
    return by_id


# ---------------------------------------------------------------------- formatting
def share(x: float) -> str:
    """A share of hands with the digits it was measured to: three decimals, more only
    where the record has them (``0.5015``); JSON drops trailing zeros (``0.57``), so the
    printed precision cannot come from the number's text."""
    text = repr(float(x))
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return f"{x:.{max(3, decimals)}f}"


def figure_ci(record: Record) -> str:
    """``0.694 [0.688, 0.699]``: the figure and its 95% interval over deals."""
    lo, hi = record["interval"]
    return f"{share(record['figure'])} [{share(lo)}, {share(hi)}]"


def deals_seed(record: Record) -> str:
    """``10000 (7)``: how many duplicate deals, and the seed that draws them."""
    return f"{record['deals']} ({record['seed']})"


def ruleset(record: Record) -> str:
    """The ruleset and its options as code: ```dehla`, `trump=chosen```."""
    options = ", ".join(f"`{k}={v}`" for k, v in sorted(record.get("options", {}).items()))
    return f"`{record['rules']}`" + (f", {options}" if options else "")


def agent(spec: str) -> str:
    """An agent spec as a table shows it: the search reference by its role, since its
    spec is long and every table compares with the same one."""
    return "the search reference" if spec == REFERENCE else f"`{spec}`"


def number(x: float) -> str:
    """A ratio, a time or a count as the record holds it (``12``, ``0.91``, ``53.0``):
    JSON keeps a float's written digits apart from trailing zeros of the fraction."""
    return str(x)


def reproducible(record: Record) -> str:
    """How a reader can reproduce the record: its command as is, after a training run
    (``RUN_DIR``/``runs/`` in the command), or not, and why."""
    if record.get("unavailable"):
        return "no: a network not kept"
    if record.get("command") is None:
        return "no: not a parameter of the agent"
    if record.get("reproducible") is False:  # ``changed``: what changed since, where it was not the recipe
        return "no: " + record.get("changed", "an earlier training recipe")
    if "RUN_DIR" in record["command"] or "policy:runs/" in record["command"]:
        return "after its training run"
    return "yes"


def table(header: list[str], rows: Iterable[list[str]], align: str) -> str:
    """A markdown table; ``align`` has one ``l`` or ``r`` per column."""
    marks = [":--" if a == "l" else "--:" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------- the tables
def shipped_policies() -> str:
    """One row per shipped policy: its headline figure against ``hard`` (README)."""
    rows = [
        [f"`policy:{r['policy']}`", ruleset(r), f"**{figure_ci(r)}**", deals_seed(r)]
        for r in load("shipped")["records"]
        if r.get("primary")
    ]
    return table(["policy", "ruleset", "vs `hard`: share of hands won [95% CI]", "deals (seed)"], rows, "llrr")


def shipped_policies_detail() -> str:
    """Every figure of every shipped policy: second seeds, other opponents, the network
    it replaced."""
    rows = [
        [f"`policy:{r['policy']}`", ruleset(r), agent(r["b"]), figure_ci(r), deals_seed(r)]
        for r in load("shipped")["records"]
    ]
    return table(["policy", "ruleset", "against", "share of hands won [95% CI]", "deals (seed)"], rows, "lllrr")


def shipped_training() -> str:
    """How each shipped policy was trained: config, updates, CPU minutes, decisions."""
    rows = []
    for r in load("shipped")["records"]:
        t = r.get("training")
        if t:
            rows.append(
                [
                    f"`policy:{r['policy']}`",
                    f"`--config {t['config']}`",
                    str(t["updates"]),
                    number(t["minutes"]),
                    f"{number(t['decisions_m'])} M",
                ]
            )
    return table(["policy", "config", "updates", "minutes (2 cores)", "decisions"], rows, "llrrr")


def _speed(record: Record) -> str:
    """``9.2 (0.22 x 42.1)``: ms a decision, and the ratio to the reference's time in
    the same benchmark run where one was measured."""
    ms = record.get("ms_per_decision")
    if ms is None:
        return ""
    speed = record.get("speed", {})
    text = number(ms)
    if "ratio" in speed:
        text += f" ({speed['ratio']:.2f} x {number(speed['reference_ms'])})"
    if "median_ms" in speed:
        text += f"; median {number(speed['median_ms'])}"
    return text


def search() -> str:
    """The search specs: against ``hard``, against the reference, and their time."""
    rows: dict[str, list[str]] = {}
    for r in load("search")["records"]:
        row = rows.setdefault(r["a"], [f"`{r['a']}`", "", "", ""])
        cell = f"{figure_ci(r)}, {deals_seed(r)}"
        if r["b"] == "hard":
            row[1] = cell
            row[3] = _speed(r)
        elif r["b"] == REFERENCE:
            row[2] = cell
    header = [
        "spec",
        "vs `hard` [95% CI], deals (seed)",
        "vs the search reference [95% CI], deals (seed)",
        "ms/decision (x reference, same run)",
    ]
    return table(header, rows.values(), "lrrr")


def speed() -> str:
    """The speed ratios, each against a baseline of the same run."""
    rows = []
    for r in load("speed")["records"]:
        spread = f"{number(r['range'][0])}-{number(r['range'][1])} over {r['runs']} runs" if "range" in r else "one run"
        rows.append([r["title"], f"**{number(r['figure'])} x**", r["baseline"], spread, f"`{r['command']}`"])
    return table(["what", "ratio", "baseline (same run)", "spread", "command"], rows, "lrlll")


def group_records(group: str) -> list[Record]:
    """One findings group's own records, then those of its ``include`` (by id, from
    any results file)."""
    data = load("findings")
    spec = next(g for g in data["groups"] if g["id"] == group)
    by_id = all_records()
    return [r for r in data["records"] if r["group"] == group] + [by_id[i] for i in spec["include"]]


def findings(group: str) -> Callable[[], str]:
    """The table of one group of findings: its own records, then the records of other
    files it is compared with (the group's ``include``)."""

    def render() -> str:
        records = group_records(group)
        default = make_rules()  # the rules a reader assumes where the table names none
        mixed = any(make_rules(r["rules"], r.get("options")) != default for r in records)
        extra_flat = any("flat" in r for r in records)
        extra_ms = any("ms_per_decision" in r for r in records)
        header = [
            "result",
            *(["ruleset"] if mixed else []),
            "A",
            "against",
            "share of hands won [95% CI]",
            "deals (seed)",
        ]
        align = ("ll" if mixed else "l") + "llrr"
        if extra_flat:
            header += ["deals the cards decided", "A's share of the others"]
            align += "rr"
        if extra_ms:
            header += ["ms/decision"]
            align += "r"
        header += ["reproducible"]
        align += "l"
        rows = []
        for r in records:
            title = r.get("title") or (f"`policy:{r['policy']}`" if "policy" in r else agent(r["a"]))
            row = [title, *([ruleset(r)] if mixed else []), agent(r["a"]), agent(r["b"]), figure_ci(r), deals_seed(r)]
            if extra_flat:
                row += [
                    share(r["flat"]) if "flat" in r else "",
                    share(r["share_of_rest"]) if "share_of_rest" in r else "",
                ]
            if extra_ms:
                row += [_speed(r)]
            rows.append(row + [reproducible(r)])
        return table(header, rows, align)

    return render


#: the wall-clock minutes between two rows of a curves table
CURVE_MARKS_MINUTES = 2


def curves(group: str) -> Callable[[], str]:
    """The learning curves of one findings group's training runs, side by side per
    wall-clock minute: at each mark, each run's latest evaluation against ``hard`` (the
    trainer's in-memory arena duel, ``eval_every`` / ``eval_deals``) and its update then.
    A run's curve is its record's ``training.curve``: ``minutes`` since the run started
    (the warm start included), ``update``, ``figure`` and ``interval``; the runs are the
    group's records that have one, its ``include`` among them."""

    def render() -> str:
        runs = [r for r in group_records(group) if "curve" in r.get("training", {})]
        step = CURVE_MARKS_MINUTES
        first = min(p["minutes"] for r in runs for p in r["training"]["curve"])
        last = min(r["training"]["curve"][-1]["minutes"] for r in runs)
        marks = range(step * -(-int(first) // step), int(last) + 1, step)
        rows = []
        for m in marks:
            row = [str(m)]
            for r in runs:
                seen = [p for p in r["training"]["curve"] if p["minutes"] <= m]
                row.append(f"{figure_ci(seen[-1])} (update {seen[-1]['update']})" if seen else "")
            rows.append(row)
        header = ["minutes", *(r["title"] for r in runs)]
        return table(header, rows, "r" * len(header))

    return render


def signed(x: float, decimals: int = 0) -> str:
    """A rating or a gap with its sign (``+332``, ``-0.044``), as ladders print them."""
    return f"{x:+.{decimals}f}"


#: the ladders' columns: (preset, mode) as ``ladder.json`` keys them, and the heading
_LADDER_COLUMNS = (
    ("dehla", "hand", "`dehla`"),
    ("dehla-chosen", "hand", "`dehla`, `trump=chosen`"),
    ("dehla-direct", "hand", "`dehla-direct`"),
    ("court-piece", "hand", "`court-piece`"),
    ("coat-pees", "hand", "`coat-pees`"),
    ("dehla", "match", "`dehla`, whole matches"),
)
_LADDER_AGENTS = ("search:k=8,depth=3", "hard", "medium", "easy", "random")


def ladders() -> str:
    """The published reference ladders (``dehla-bench --rules R`` prints them), one
    column per preset: Bradley-Terry ratings on the Elo scale with ``random`` at 0 and
    95% bootstrap intervals. Read from the benchmark's own package data, so the page
    shows what the benchmark places agents against."""
    data = json.loads(LADDERS.read_text())

    def cell(ratings: dict[str, dict[str, float]], name: str) -> str:
        r = ratings[name]
        return f"{signed(r['rating'])} [{signed(r['low'])}, {signed(r['high'])}]"

    rows = []
    policy_row = ["the preset's shipped policy"]
    for preset, mode, _ in _LADDER_COLUMNS:
        ladder = data[preset][mode]
        (policy,) = ladder["policies"]
        policy_row.append(f"`{policy}` {cell(ladder['ratings'], policy)}")
    rows.append(policy_row)
    for name in _LADDER_AGENTS:
        rows.append([f"`{name}`"] + [cell(data[p][m]["ratings"], name) for p, m, _ in _LADDER_COLUMNS])
    header = ["agent", *(title for _, _, title in _LADDER_COLUMNS)]
    return table(header, rows, "l" + "r" * len(_LADDER_COLUMNS))


def crossplay() -> str:
    """The cross-play matrix: the share of hands won by the row's lead with the column's
    partner against a fixed pair of the opponent."""
    data = load("crossplay")
    agents = data["agents"]
    rows = [[f"`{lead}`"] + [share(data["matrix"][lead][partner]) for partner in agents] for lead in agents]
    return table(["lead \\ partner", *(f"`{a}`" for a in agents)], rows, "l" + "r" * len(agents))


def crossplay_summary() -> str:
    """Per agent: self-play, cross-play, their gap, ad-hoc teamwork, and the
    partner-adjusted rating with its 95% interval."""
    data = load("crossplay")
    rows = []
    for name in data["agents"]:
        s = data["summary"][name]
        lo, hi = s["interval"]
        rows.append(
            [
                f"`{name}`",
                share(s["self_play"]),
                share(s["cross_play"]),
                signed(s["gap"], 3),
                share(s["adhoc"]),
                f"{signed(s['rating'])} [{signed(lo)}, {signed(hi)}]",
            ]
        )
    header = ["agent", "self-play", "cross-play", "gap", "ad-hoc teamwork", "partner-adjusted rating"]
    return table(header, rows, "lrrrrr")


def held_out_score(record: Record, candidate: str) -> tuple[float, float, float]:
    """A candidate's result with the partners it was not trained with (``held_out``):
    the mean over them of its two seatings' shares (it as lead, then as partner), as the
    benchmark's ad-hoc teamwork score averages them, with a 95% interval by the normal
    approximation from each duel's own interval (the duels taken as independent: they
    share deals, so this is wide rather than narrow)."""
    means, variances = [], []
    for partner in record["held_out"]:
        pair = [(candidate, partner), (partner, candidate)]
        means.append(sum(record["matrix"][a][b] for a, b in pair) / 2)
        ses = [(record["intervals"][a][b][1] - record["intervals"][a][b][0]) / (2 * 1.96) for a, b in pair]
        variances.append(sum(se * se for se in ses) / 4)
    k = len(means)
    mean = sum(means) / k
    half = 1.96 * sum(variances) ** 0.5 / k
    return round(mean, 4), round(mean - half, 4), round(mean + half, 4)


def partners() -> str:
    """The partner-robust arm beside the self-play policy, each as a partner of every
    held-out agent (its result as lead with it, and as its partner), the mean over them
    with its interval, the benchmark's ad-hoc teamwork score over all the other agents
    of the table, and each one's self-play result."""
    rows = []
    for record in load("partners")["records"]:
        held = record["held_out"]
        for name in record["candidates"]:
            cells = [f"{share(record['matrix'][name][p])} / {share(record['matrix'][p][name])}" for p in held]
            mean, lo, hi = held_out_score(record, name)
            s = record["summary"][name]
            rows.append(
                [f"`{name}`", *cells, f"**{share(mean)}** [{share(lo)}, {share(hi)}]", share(s["adhoc"]),
                 share(s["self_play"])]
            )  # fmt: skip
        header = ["policy", *(f"with `{p}`" for p in held), "held-out mean", "ad-hoc (all others)", "self-play"]
    return table(header, rows, "l" + "r" * (len(header) - 1))


#: the benchmark's defaults for the settings a record keeps (a record that changed one names it)
EXPLOIT_DEFAULTS = {"critic_hands": 300, "games": 256}


def exploitability() -> str:
    """Per target: the start network's share against it at minute 0 (and the trainer
    settings changed, if any), the best response's share after the training budget, the
    gain, and the curve between (share at minutes)."""
    rows = []
    for r in load("exploitability")["records"]:
        t = r["training"]
        curve = ", ".join(f"{share(p['figure'])} at {number(p['minutes'])}" for p in r["curve"][1:-1])
        changed = [f"--{k.replace('_', '-')} {t[k]}" for k, v in EXPLOIT_DEFAULTS.items() if t[k] != v]
        start = ", ".join(f"`{s}`" for s in (r["start"], *t.get("overrides", []), *changed))
        rows.append(
            [
                agent(r["target"]), ruleset(r), start, share(r["start_figure"]), f"**{figure_ci(r)}**",
                signed(r["gain"], 3), deals_seed(r), curve, f"{t['updates']} in {number(t['minutes'])}",
                f"{sum(t['load']) / len(t['load']):.1f}",
            ]
        )  # fmt: skip
    header = [
        "target", "ruleset", "best response starts from", "minute 0", "best response [95% CI]", "gain",
        "deals (seed)", "between (share at minute)", "updates in minutes", "load (2 cores)",
    ]  # fmt: skip
    return table(header, rows, "lllrrrrlrr")


def time_to_strength() -> str:
    """Per recipe run (``benchmarks/time_to_strength.py``): what it is, its config and the
    settings changed from it, the minutes its network needed to first reach the target (with the share
    then, over all the deals), and the learning curve (share at minute, screening deals)."""
    data = load("time_to_strength")
    rows = []
    for r in data["records"]:
        t = r["training"]
        reached = "not reached" if r["minutes_to_target"] is None else f"**{number(r['minutes_to_target'])}**"
        curve = ", ".join(f"{share(p['figure'])} at {number(p['minutes'])}" for p in r["curve"])
        recipe = ", ".join(f"`{s}`" for s in (f"--config {r['config']}", *t["overrides"]))
        rows.append(
            [
                r["title"], recipe, ruleset(r), f"{share(r['target'])} against {agent(r['against'])}", reached,
                figure_ci(r), deals_seed(r), curve, f"{t['updates']} in {number(t['minutes'])}",
                reproducible(r),
            ]
        )  # fmt: skip
    header = [
        "run", "settings", "ruleset", "target", "minutes to target", "share then [95% CI]", "deals (seed)",
        f"learning curve (share at minute, first {data['screen_deals']} deals)",
        "updates in minutes", "reproducible",
    ]  # fmt: skip
    return table(header, rows, "llllrrrlrl")


def tables() -> dict[str, Callable[[], str]]:
    """Every table by block name. A findings group ``G`` is the block ``findings-G``."""
    named: dict[str, Callable[[], str]] = {
        "shipped-policies": shipped_policies,
        "shipped-policies-detail": shipped_policies_detail,
        "shipped-training": shipped_training,
        "search": search,
        "speed": speed,
        "ladders": ladders,
        "crossplay": crossplay,
        "crossplay-summary": crossplay_summary,
        "partners": partners,
        "exploitability": exploitability,
        "time-to-strength": time_to_strength,
    }
    for g in load("findings")["groups"]:
        named[f"findings-{g['id']}"] = findings(g["id"])
        if g.get("curves"):
            named[f"curves-{g['id']}"] = curves(g["id"])
    return named


# ---------------------------------------------------------------------- the blocks
def _closes(line: str, name: str) -> bool:
    """Whether ``line`` is the closing marker of block ``name`` (blocks do not nest)."""
    closed = _CLOSE.match(line)
    return closed is not None and closed.group(1) == name


def _shown(path: Path) -> str:
    """A file's name as messages show it: relative to the repository where it can be."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def rewrite(text: str, where: str, render: dict[str, Callable[[], str]]) -> tuple[str, list[str]]:
    """``text`` with every marked block regenerated, and the names of the blocks whose
    content changed. A block's content is a blank line, the table, a blank line, so
    that markdown renders the markers as comments apart from the table."""
    out: list[str] = []
    changed: list[str] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        opened = _OPEN.match(line)
        i += 1
        if not opened:
            continue
        name = opened.group(1)
        if name not in render:
            raise BlockError(f"{where}: unknown results block {name!r} (known: {', '.join(sorted(render))})")
        start = i
        while i < len(lines) and not _closes(lines[i], name):
            i += 1
        if i == len(lines):
            raise BlockError(f"{where}: results block {name!r} has no closing <!-- /results:{name} --> line")
        old = "".join(lines[start:i])
        new = "\n" + render[name]() + "\n\n"
        if old != new:
            changed.append(name)
        out.append(new)
    return "".join(out), changed


def default_files() -> list[Path]:
    """Where blocks may live: the README and the docs pages."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def check(files: Iterable[Path] | None = None) -> list[str]:
    """One line per block that differs from what the records generate (empty: all agree)."""
    render = tables()
    problems = []
    for path in files if files is not None else default_files():
        if path.is_file():
            _, changed = rewrite(path.read_text(), _shown(path), render)
            problems += [f"{_shown(path)}: block {name!r} differs from the records" for name in changed]
    return problems


def write(files: Iterable[Path] | None = None) -> list[str]:
    """Regenerate every block in place; the blocks rewritten, as ``FILE: NAME``."""
    render = tables()
    done = []
    for path in files if files is not None else default_files():
        if path.is_file():
            text, changed = rewrite(path.read_text(), _shown(path), render)
            if changed:
                path.write_text(text)
                done += [f"{_shown(path)}: {name}" for name in changed]
    return done


def main(argv: list[str] | None = None) -> int:
    """Rewrite the blocks, or with ``--check`` report the ones that differ (exit 1)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 naming each block that differs")
    parser.add_argument("--list", action="store_true", help="print the block names and exit")
    parser.add_argument("files", nargs="*", type=Path, help="markdown files (default: README.md and docs/*.md)")
    args = parser.parse_args(argv)
    files = [p.resolve() for p in args.files] or None
    try:
        if args.list:
            print("\n".join(tables()))
            return 0
        if args.check:
            problems = check(files)
            for line in problems:
                print(f"{line} (run python results/tables.py)", file=sys.stderr)
            return 1 if problems else 0
        for line in write(files):
            print(f"rewrote {line}")
    except BlockError as error:
        print(error, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
