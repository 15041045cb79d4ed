"""The agent table: every bot by name, its parameters, and the spec grammar.

An *agent spec* is the text the arena, the terminal game, the gymnasium wrapper factory
and the configs take::

    NAME                      hard
    NAME:KEY=VALUE[,...]      search:k=16,depth=5
    policy:WHERE[,KEY=VALUE]  policy:dehla   policy:dehla,relabel=1   policy:runs/x/policy.pt,sample=1

:data:`AGENTS` lists every name with its parameters (type, default, meaning); an
unknown name or parameter, or a value of the wrong type, is a ``ValueError`` that lists
what exists. :func:`make_agent` builds a fresh agent, seeded, for a ruleset.
:func:`spec_help` is the text that ``--help`` shows.

Every costly parameter has declared bounds (:attr:`Param.minimum`, :attr:`Param.maximum`;
floats are finite), a spec is at most :data:`MAX_SPEC_LENGTH` characters, and specs
named inside specs (``search:opp=...``, ``playout``, ``prior``, ``belief``) nest at most
:data:`MAX_SPEC_NESTING` deep, all checked by :func:`parse_spec`: whatever asks for an
agent (the command lines, the configs, the web server) gets a bounded amount of work
per decision, or a one-line ``ValueError`` naming the parameter and its range. The
bounds are generous for play and benchmarks (the shipped configs use ``k`` up to 128
and ``depth`` up to 7); the exact solver's time grows about fourfold per trick of
``depth`` (about 2 s for 4 worlds at ``depth=9`` from the first trick).

The table is explicit: this module imports the bot modules (never the reverse), and
the heavy ones (the search, a policy's network) only when such an agent is made.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.base import Agent, RandomAgent
from agents.bots.heuristic import EasyAgent, HardAgent, MediumAgent
from dehla_env.rules import Rules

if TYPE_CHECKING:  # a policy's modules are imported only when a policy agent is made
    from agents.nets.agent import PolicyAgent
    from agents.search.belief import PlayLikelihood

#: where the shipped policies live (package data): ``policy:NAME`` plays ``NAME.safetensors``
#: here (the play format, no torch needed), exported from the training checkpoint ``NAME.pt``
SHIPPED_POLICIES = Path(__file__).resolve().parent / "checkpoints"
PLAY_SUFFIX = ".safetensors"  # agents.nets.play's, named here so the table imports no network code

#: the longest spec text accepted (a spec naming a checkpoint path and nested specs fits)
MAX_SPEC_LENGTH = 400
#: how deep specs may be named inside specs: ``search:opp=search:k=4`` is 2 deep
MAX_SPEC_NESTING = 3

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Param:
    """One parameter of an agent: ``kind`` is ``int``, ``float``, ``bool`` or ``str``."""

    name: str
    kind: type
    default: Any
    help: str
    minimum: float | None = None
    nullable: bool = False  # whether ``none`` is a value (``budget_ms=none``)
    maximum: float | None = None  # the most work (worlds, tricks, milliseconds) a spec may ask for
    spec: bool = False  # the value is itself an agent spec (checked, nested at most MAX_SPEC_NESTING deep)

    def range_text(self) -> str:
        """The allowed values, for errors and ``--help``: ``1..512``, ``at least 0``."""
        lo = "" if self.minimum is None else f"{self.minimum:g}"
        if self.maximum is None:
            return f"at least {lo}" if lo else "any finite number"
        return f"{lo or 'up to '}..{self.maximum:g}" if lo else f"up to {self.maximum:g}"

    def parse(self, text: str, agent: str) -> Any:
        """The typed value of ``text``; ``ValueError`` naming the agent and parameter."""
        where = f"{agent}: parameter {self.name}"
        if self.nullable and text.lower() in ("", "none"):
            return None
        if self.kind is bool:
            if text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise ValueError(f"{where} is true or false (1/0), not {text!r}")
        if self.kind is str:
            if not text:
                raise ValueError(f"{where} needs a value")
            return text
        shown = text if len(text) <= 40 else text[:40] + "..."
        try:
            value = self.kind(text)
        except ValueError:
            raise ValueError(f"{where} is {'an integer' if self.kind is int else 'a number'}, not {shown!r}") from None
        if self.kind is float and not math.isfinite(value):  # NaN and the infinities ask for no bounded work
            raise ValueError(f"{where} is a finite number ({self.range_text()}), not {shown!r}")
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            raise ValueError(f"{where} must be {self.range_text()}, not {shown}")
        return value


Builder = Callable[[Rules, dict[str, Any], "int | None"], Agent]


@dataclass(frozen=True)
class AgentEntry:
    """A row of the agent table."""

    name: str
    summary: str
    params: tuple[Param, ...]
    build: Builder
    positional: str | None = None  # the parameter a bare value fills (``policy:dehla``)
    #: a search that may think for up to its time cap per decision: the web game runs
    #: such a bot apart from its event loop
    thinks: bool = False

    def param(self, key: str) -> Param:
        by_name = {p.name: p for p in self.params}
        if key not in by_name:
            known = ", ".join(by_name) or "none"
            raise ValueError(f"agent {self.name!r} has no parameter {key!r}; its parameters: {known}")
        return by_name[key]

    def usage(self) -> str:
        if not self.params:
            return self.name
        if self.positional is None:
            return f"{self.name}:" + ",".join(f"[{p.name}={_default_text(p)}]" for p in self.params)
        first = self.param(self.positional)
        rest = "".join(f"[,{p.name}={_default_text(p)}]" for p in self.params if p is not first)
        return f"{self.name}:{self.positional.upper()}{rest}"


def _default_text(p: Param) -> str:
    if p.default is None:
        return "none"
    if p.kind is bool:
        return "1" if p.default else "0"
    return str(p.default)


# ---------------------------------------------------------------------- builders
def _seeded(cls: Callable[[int | None], Agent]) -> Builder:
    """The builder of a bot with no parameters but its seed."""
    return lambda rules, p, seed: cls(seed)


def _search(rules: Rules, p: dict[str, Any], seed: int | None) -> Agent:
    from agents.search.pimc import PLAYOUT_RULES, SearchAgent

    playout = p["playout"]
    playout_agent = playout if playout in PLAYOUT_RULES else make_agent(playout, rules)
    opponents = None if p["opp"] is None else make_agent(p["opp"], rules)
    return SearchAgent(
        rules,
        k=p["k"],
        depth=p["depth"],
        budget_ms=p["budget_ms"],
        playout=playout_agent,
        seed=seed,
        exact=p["exact"],
        margin=p["margin"],
        prune=p["prune"],
        rollout_depth=p["rdepth"],
        opponents=opponents,
        prior=_prior(p, rules),
        keep=p["keep"],
    )


def _prior(p: dict[str, Any], rules: Rules) -> PolicyAgent | None:
    """A search spec's ``prior``, averaged over the suit relabellings with ``relabel``
    (what ``policy:NAME,relabel=1`` plays; a nested spec cannot carry its own commas)."""
    prior = _policy_param(p, rules, "prior")
    if p["relabel"]:
        if prior is None:
            raise ValueError("search: relabel averages the prior over the suit relabellings; give prior=policy:NAME")
        prior.relabel = True
    return prior


def _policy_param(p: dict[str, Any], rules: Rules, key: str) -> PolicyAgent | None:
    """A search spec's policy-valued parameter ``key`` (``prior``, ``belief``): the
    policy agent it names (its move probabilities), or None."""
    if p[key] is None:
        return None
    if p[key].partition(":")[0] != "policy":
        raise ValueError(f"search: {key} is a policy spec such as policy:dehla, not {p[key]!r}")
    from agents.nets.agent import PolicyAgent

    agent = make_agent(p[key], rules)
    assert isinstance(agent, PolicyAgent)
    return agent


#: ``policy:NAME`` files offered besides the shipped ones (:func:`register_policies`)
_NAMED_POLICIES: dict[str, Path] = {}


def register_policies(files: Mapping[str, Path]) -> None:
    """Make ``policy:NAME`` name ``files[NAME]`` in this process (the web server's
    ``--policy-dir``); the shipped names keep their files."""
    _NAMED_POLICIES.update({name: Path(path) for name, path in files.items()})


def policy_path(where: str) -> Path:
    """The file of ``policy:WHERE``: a shipped policy's name (``dehla``), a registered
    name (:func:`register_policies`) or a path."""
    shipped = SHIPPED_POLICIES / f"{where}{PLAY_SUFFIX}"
    if "/" not in where and "\\" not in where and not where.endswith((".pt", PLAY_SUFFIX)):
        if shipped.is_file():
            return shipped
        if where in _NAMED_POLICIES:
            return _NAMED_POLICIES[where]
    path = Path(where)
    if not path.exists():
        names = ", ".join(shipped_policies()) or "none"
        raise ValueError(f"policy:{where}: no such file, and no shipped policy of that name (shipped: {names})")
    return path


def shipped_policies() -> list[str]:
    """The names of the shipped policies (``policy:NAME``)."""
    return sorted(f.stem for f in SHIPPED_POLICIES.glob(f"*{PLAY_SUFFIX}"))


def default_bot(rules: Rules) -> str:
    """The bot played wherever none is named (the web game's partner and opponents, a
    table's bot seats, ``dehla-play``'s, a study's partner): the shipped policy trained
    for ``rules`` (the one named after the ruleset where several are: ``dehla-playout``
    is a search's playout network), else ``hard``. Every shipped policy beats ``hard``
    (docs/results.md)."""
    from agents.nets.agent import cached_network

    playing = [n for n in shipped_policies() if cached_network(SHIPPED_POLICIES / f"{n}{PLAY_SUFFIX}")[1] == rules]
    if not playing:
        return "hard"
    return f"policy:{rules.name if rules.name in playing else playing[0]}"


def _policy(rules: Rules, p: dict[str, Any], seed: int | None) -> Agent:
    path = policy_path(p["path"])
    from agents.nets.agent import PolicyAgent

    return PolicyAgent(path, rules, seed, sample=p["sample"], relabel=p["relabel"])


#: the bounds of the search's costly parameters (see the module docstring)
MAX_WORLDS = 512
MAX_DEPTH = 9
MAX_BUDGET_MS = 60_000.0


def _batched_search(rules: Rules, p: dict[str, Any], seed: int | None) -> Agent:
    from agents.bots.batched import BATCHED_POLICIES, make_batched_policy
    from agents.search.batched import BatchedSearchAgent

    playout = p["playout"]
    policy: Any = None
    if playout in BATCHED_POLICIES:
        policy = make_batched_policy(playout, rules.players, seed)
    elif playout.partition(":")[0] == "policy":
        from agents.nets.agent import GreedyBatch, PolicyAgent

        agent = make_agent(playout, rules)  # a policy checks it was trained for these rules
        assert isinstance(agent, PolicyAgent)
        policy = GreedyBatch(agent.net)  # its greedy move, for the whole batch
    else:
        raise ValueError(
            f"batched-search plays out with a batched policy: {', '.join(BATCHED_POLICIES)} or policy:NAME, "
            f"not {playout!r}"
        )
    return BatchedSearchAgent(
        rules,
        policy,
        playout,
        k=p["k"],
        depth=p["depth"],
        seed=seed,
        margin=p["margin"],
        rollout_depth=p["rdepth"],
        prior=_prior(p, rules),
        keep=p["keep"],
        prune=p["prune"],
        belief=_belief(p, rules),
    )


def _ismcts(rules: Rules, p: dict[str, Any], seed: int | None) -> Agent:
    from agents.search.ismcts import ISMCTSAgent
    from agents.search.pimc import PLAYOUT_RULES

    playout = p["playout"]
    return ISMCTSAgent(
        rules,
        iterations=p["iterations"],
        budget_ms=p["budget_ms"],
        c=p["c"],
        prior=_policy_param(p, rules, "prior"),
        playout=playout if playout in PLAYOUT_RULES else make_agent(playout, rules),
        depth=p["depth"],
        seed=seed,
        guide=p["guide"],
    )


def _belief(p: dict[str, Any], rules: Rules) -> PlayLikelihood | None:
    """The ``belief`` of a batched search spec: the likelihood of the plays seen under a
    policy network (:class:`agents.search.belief.PlayLikelihood`), or None."""
    if p["belief"] is None:
        return None
    from agents.search.belief import PlayLikelihood

    model = _policy_param(p, rules, "belief")
    assert model is not None
    return PlayLikelihood(rules, model.net)


# the parameters both searches share
_WORLDS = Param("k", int, 48, "worlds sampled per decision", minimum=1, maximum=MAX_WORLDS)
_DEPTH = Param("depth", int, 5, "tricks left at which a world is solved exactly", minimum=0, maximum=MAX_DEPTH)
_MARGIN = Param("margin", float, 0.01, "weight of the margin tie-break beside win/loss", 0, maximum=1)
_PRIOR = Param(
    "prior",
    str,
    None,
    "policy spec whose move probabilities prune the moves; its move where the search does not search",
    nullable=True,
    spec=True,
)
_KEEP = Param("keep", float, 1.0, "with prior: the share of its mass kept, most probable first", 0, maximum=1)
_RELABEL = Param("relabel", bool, False, "with prior: average it over the 24 suit relabellings")
# the parameters the two searches that play scalar worlds (search, ismcts) share
_BUDGET = Param(
    "budget_ms", float, None, "time per decision in ms (none: no cap)", 0, nullable=True, maximum=MAX_BUDGET_MS
)
_RULE_PLAYOUT = Param("playout", str, "rule", "playout policy: rule, greedy or an agent spec", spec=True)
# the parameters of one agent each that do not fit a line of the table
_RDEPTH_HELP = "solve depth at the end of playouts (none: depth; 0: to the end)"
_RDEPTH = Param("rdepth", int, None, _RDEPTH_HELP, 0, nullable=True, maximum=MAX_DEPTH)
_OPP = Param("opp", str, None, "agent spec for the opponents in playouts (none: playout)", nullable=True, spec=True)
_BELIEF_HELP = "policy spec whose probabilities of the plays seen weight the worlds"
_BELIEF = Param("belief", str, None, _BELIEF_HELP, nullable=True, spec=True)
_C = Param("c", float, 1.0, "exploration constant (PUCT, or UCB1 with guide=0 and no prior)", 0, maximum=100)
_PUCT_PRIOR = Param(
    "prior", str, None, "policy spec whose move probabilities are the PUCT prior", nullable=True, spec=True
)
_GUIDE = Param(
    "guide", float, 0.5, "share of the PUCT prior on the rule playout's move (0 and no prior: UCB1)", 0, maximum=1
)

AGENTS: dict[str, AgentEntry] = {
    e.name: e
    for e in (
        AgentEntry("random", "uniformly random legal moves", (), _seeded(RandomAgent)),
        AgentEntry(
            "easy", "wins a trick cheaply when it can, else plays low; tens are ordinary cards", (), _seeded(EasyAgent)
        ),
        AgentEntry("medium", "the hard bot with 40% of its card decisions the easy bot's", (), _seeded(MediumAgent)),
        AgentEntry(
            "hard", "counts cards and voids; plays the best expected value of the trick (R1.11)", (), _seeded(HardAgent)
        ),
        AgentEntry(
            "search",
            "perfect-information Monte Carlo over sampled consistent deals, exact solver at the end",
            (
                _WORLDS,
                _DEPTH,
                _BUDGET,
                _RULE_PLAYOUT,
                Param("exact", bool, False, "solve whole hands exactly where possible"),
                _MARGIN,
                Param("prune", float, 1.0, "successive elimination width (0: every move, every world)", 0, maximum=100),
                _RDEPTH,
                _OPP,
                _PRIOR,
                _KEEP,
                _RELABEL,
            ),
            _search,
            thinks=True,
        ),
        AgentEntry(
            "batched-search",
            "the search's worlds played out together on the batched engine by one batched policy",
            (
                _WORLDS,
                _DEPTH,
                Param("playout", str, "cardsense", "batched playout policy: cardsense or policy:NAME", spec=True),
                _MARGIN,
                Param("prune", float, 0.0, "successive elimination width (0: every move, every world)", 0, maximum=100),
                Param("rdepth", int, 0, "solve depth after playouts (0: play to the end)", 0, maximum=MAX_DEPTH),
                _PRIOR,
                _KEEP,
                _RELABEL,
                _BELIEF,
            ),
            _batched_search,
        ),
        AgentEntry(
            "ismcts",
            "information-set Monte Carlo tree search: one tree over the seat's information set",
            (
                Param("iterations", int, 400, "iterations (sampled deals) per decision", minimum=1, maximum=5000),
                _BUDGET,
                _C,
                _PUCT_PRIOR,
                _RULE_PLAYOUT,
                _DEPTH,
                _GUIDE,
            ),
            _ismcts,
            thinks=True,
        ),
        AgentEntry(
            "policy",
            "a trained policy network: a shipped name (policy:dehla) or a checkpoint file",
            (
                Param("path", str, None, "shipped policy name or checkpoint path"),
                Param("sample", bool, False, "sample from the policy instead of its greedy move"),
                Param("relabel", bool, False, "average the network over the 24 suit relabellings of the game"),
            ),
            _policy,
            positional="path",
        ),
    )
}


def parse_spec(spec: str, nesting: int = 1) -> tuple[AgentEntry, dict[str, Any]]:
    """The table entry and the typed parameters (defaults filled in) of a spec;
    ``ValueError`` for an unknown name, parameter or value, listing what exists.

    The specs named by its parameters (``opp``, ``playout``, ``prior``, ``belief``) are
    parsed too, so a bound broken anywhere inside is refused here, before anything is
    built; ``nesting`` is how deep this spec sits (1 for the outermost)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a name such as hard or search:k=16, not {spec!r}; known: {known_names()}")
    if len(spec) > MAX_SPEC_LENGTH:
        raise ValueError(f"an agent spec is at most {MAX_SPEC_LENGTH} characters, not {len(spec)}")
    if nesting > MAX_SPEC_NESTING:
        raise ValueError(f"agent specs nest at most {MAX_SPEC_NESTING} deep (a spec inside a spec inside a spec)")
    name, _, rest = spec.strip().partition(":")
    entry = AGENTS.get(name)
    if entry is None:
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise ValueError(f"unknown agent {shown!r}; known: {known_names()}")
    given: dict[str, str] = {}
    if rest:
        parts = rest.split(",")
        if entry.positional is not None and "=" not in parts[0]:
            given[entry.positional] = parts.pop(0)
        for part in parts:
            key, sep, value = part.partition("=")
            key = key.strip()
            if not sep or not key:
                raise ValueError(f"agent parameter {part!r} in {spec!r} is not key=value (usage: {entry.usage()})")
            if key in given:
                raise ValueError(f"agent parameter {key!r} given twice in {spec!r}")
            given[key] = value.strip()
    values: dict[str, Any] = {}
    for key, text in given.items():
        param = entry.param(key)
        values[key] = param.parse(text, name)
        if param.spec and isinstance(values[key], str) and values[key].partition(":")[0] in AGENTS:
            parse_spec(values[key], nesting + 1)
    for p in entry.params:
        if p.name not in values:
            if entry.positional is not None and p is entry.param(entry.positional):
                raise ValueError(f"agent {name!r} needs {p.name}: {entry.usage()}")
            values[p.name] = p.default
    return entry, values


def weight_files(spec: str) -> list[Path]:
    """The checkpoint files a spec plays with: its own (``policy:...``) and those of the
    agent specs it names as parameters (a search's ``playout``/``opp``). What a
    benchmark's saved results must be keyed by besides the spec's text, because the
    file behind ``policy:NAME`` can change."""
    entry, params = parse_spec(spec)
    if entry.build is _policy:
        return [policy_path(params["path"])]
    files: list[Path] = []
    for p in entry.params:
        value = params[p.name]
        if p.kind is str and isinstance(value, str) and value.partition(":")[0] in AGENTS:
            files += weight_files(value)
    return files


def make_agent(spec: str, rules: Rules, seed: int | None = None) -> Agent:
    """A new agent for ``rules`` from a spec string (see the module docstring)."""
    entry, params = parse_spec(spec)
    agent = entry.build(rules, params, seed)
    agent.name = spec
    return agent


def known_names() -> str:
    return ", ".join(f"{e.name}:PATH" if e.positional else e.name for e in AGENTS.values())


def spec_help() -> str:
    """The spec grammar and every agent with its parameters, for ``--help``."""
    lines = ["agent specs: NAME or NAME:KEY=VALUE,... (policy:NAME_OR_PATH[,sample=1])"]
    for e in AGENTS.values():
        lines.append(f"  {e.usage()}")
        lines.append(f"      {e.summary}")
        for p in e.params:
            bounds = f"; {p.range_text()}" if p.maximum is not None else ""
            lines.append(f"      {p.name}: {p.help} (default {_default_text(p)}{bounds})")
    shipped = shipped_policies()
    if shipped:
        lines.append(f"  shipped policies: {', '.join('policy:' + s for s in shipped)}")
    return "\n".join(lines)


__all__ = [
    "AGENTS",
    "MAX_DEPTH",
    "MAX_SPEC_LENGTH",
    "MAX_SPEC_NESTING",
    "MAX_WORLDS",
    "AgentEntry",
    "Param",
    "default_bot",
    "make_agent",
    "parse_spec",
    "policy_path",
    "register_policies",
    "shipped_policies",
    "spec_help",
]
