"""The opponent pool: who plays the other side of each self-play game.

For every game and every new hand the trainer draws one *kind* by weight, and the
learner's side at random. The kinds, named as they are (no stand-in borrows a bot's
name):

===============  ====================================================================
``self``         the current policy on both sides: both sides' decisions are learned
``snapshot``     a frozen earlier copy of the policy, one of the last ``max_snapshots``
                 kept (uniformly); drawn only once the pool holds one
``imitation``    the policy as the imitation warm start left it: a batched copy of the
                 teacher's play at network speed, not the teacher itself; drawn only
                 after a warm start
``random``,      the batched bots of :mod:`agents.bots.batched` (``cardsense`` is simple card
``tensafe``,     sense, ``tensafe`` random play that keeps its tens)
``cardsense``
any other spec   an agent of :mod:`agents.registry` (``hard``, ``search:k=8`` ...), the
                 real bot: it plays on a scalar mirror of its game (:class:`ScalarOpponent`),
                 one view-based decision at a time (``hard``: about 0.5 ms a decision); a
                 greedy ``policy:NAME`` plays as one batch, its network's greedy moves
``noisy:KIND,``  a batched bot or an agent spec that, with probability ``EPS`` per
``eps=EPS``      decision, plays a uniformly random legal move instead of its own
                 (``noisy:hard,eps=0.3``, ``noisy:search:k=8,eps=0.1``: ``eps`` is the
                 last parameter): a weaker, less predictable version of the same player
===============  ====================================================================

The same kinds name the trainer's ``partners`` (who sits beside the learner): a second
pool of these, sharing this one's snapshots and warm start.

A draw is a *slot*: 0 is ``self``, then one slot per batched bot named in the weights,
then one per agent spec, then ``imitation``, then the snapshots.
:meth:`OpponentPool.policies` builds the player of every slot for one rollout: a batched
policy ``(obs, mask) -> actions``, or a :class:`ScalarOpponent`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agents.base import Agent
from agents.bots.batched import BATCHED_POLICIES, TorchPolicy, make_batched_policy
from agents.nets.agent import GreedyBatch, PolicyAgent
from agents.registry import make_agent, parse_spec
from dehla_env.engine import MatchState
from dehla_env.rules import Rules
from dehla_env.vector import BatchPolicy, random_legal
from dehla_env.vector.engine import BatchEngine
from dehla_env.view import view_of

#: the kinds that are not batched bots or agent specs
SELF, SNAPSHOT, IMITATION = "self", "snapshot", "imitation"
#: the prefix and the last parameter of a noisy kind: ``noisy:hard,eps=0.3``
NOISY, EPS = "noisy:", ",eps="
StateDict = dict[str, Any]


def parse_kind(kind: str) -> tuple[str, float]:
    """A kind's player and the probability of a random legal move in its stead: ``hard``
    is (``hard``, 0), ``noisy:hard,eps=0.3`` is (``hard``, 0.3). ``ValueError`` for a
    noisy kind without a probability in [0, 1] or around a kind that is the policy
    itself (``self``, ``snapshot``, ``imitation``: a random move there would be sampled
    by no one's policy)."""
    if not kind.startswith(NOISY):
        return kind, 0.0
    base, sep, eps_text = kind[len(NOISY) :].rpartition(EPS)
    try:
        eps = float(eps_text) if sep else float("nan")
    except ValueError:
        eps = float("nan")
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"{kind!r}: a noisy kind is noisy:KIND,eps=P with P in [0, 1] as its last parameter")
    if base in (SELF, SNAPSHOT, IMITATION) or base.startswith(NOISY) or not base:
        raise ValueError(f"{kind!r}: noisy: takes a batched bot or an agent spec, not {base!r}")
    return base, eps


class OpponentPool:
    """Weights by kind, the kept snapshots and the warm start's weights; see the module
    docstring. ``snapshots`` and ``imitation`` are torch state dicts (a checkpoint keeps
    them, so a resumed run draws from the same pool)."""

    def __init__(self, weights: Mapping[str, float], max_snapshots: int = 5, rules: Rules | None = None) -> None:
        """``rules``: also build every agent spec among the kinds once for this ruleset,
        so that an unusable one is an error now."""
        batched = {SELF, SNAPSHOT, IMITATION, *BATCHED_POLICIES}
        for kind in sorted(weights):
            spec = parse_kind(kind)[0]
            if spec in batched:
                continue
            try:
                parse_spec(spec)
                if rules is not None:
                    make_agent(spec, rules, 0)
            except ValueError as e:
                known = ", ".join(sorted(batched))
                raise ValueError(f"opponent {spec!r} is neither one of {known} nor a usable agent: {e}") from None
        if any(not isinstance(w, (int, float)) or isinstance(w, bool) or not w >= 0 for w in weights.values()):
            raise ValueError(f"opponent weights are numbers >= 0, not {dict(weights)}")
        if sum(w for k, w in weights.items() if k not in (SNAPSHOT, IMITATION)) <= 0:
            # the first updates have no snapshot, and a run without a warm start no imitation
            raise ValueError(f"opponent weights need a kind besides snapshot and imitation above 0: {dict(weights)}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, not {max_snapshots}")
        self.weights = dict(weights)
        self.bots = [k for k in weights if parse_kind(k)[0] in BATCHED_POLICIES]
        self.agents = [k for k in weights if parse_kind(k)[0] not in batched]
        self.max_snapshots = max_snapshots
        self.snapshots: list[StateDict] = []
        self.imitation: StateDict | None = None

    # ------------------------------------------------------------------ contents
    def add_snapshot(self, state: StateDict) -> None:
        self.snapshots = [*self.snapshots, state][-self.max_snapshots :]

    @property
    def imitation_slot(self) -> int:
        return 1 + len(self.bots) + len(self.agents)

    @property
    def num_slots(self) -> int:
        return self.imitation_slot + 1 + len(self.snapshots)

    def slot_names(self) -> list[str]:
        names = [SELF, *self.bots, *self.agents, IMITATION]
        return names + [f"{SNAPSHOT}{i}" for i in range(len(self.snapshots))]

    def _slot_of(self, kind: str) -> int:
        if kind == SNAPSHOT:
            return -1  # one of them, drawn next
        if kind == SELF:
            return 0
        if kind == IMITATION:
            return self.imitation_slot
        if kind in self.bots:
            return 1 + self.bots.index(kind)
        return 1 + len(self.bots) + self.agents.index(kind)

    # ------------------------------------------------------------------ drawing
    def draw(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """(k,) slots, one per game: a kind by weight among those available, then a
        snapshot uniformly if the kind is ``snapshot``."""
        weights, slots = [], []
        for kind, w in self.weights.items():
            if w <= 0 or (kind == SNAPSHOT and not self.snapshots) or (kind == IMITATION and self.imitation is None):
                continue
            weights.append(w)
            slots.append(self._slot_of(kind))
        p = np.array(weights, np.float64)
        chosen = np.array(slots, np.int64)[rng.choice(len(slots), size=k, p=p / p.sum())]
        snap = chosen == -1
        chosen[snap] = self.imitation_slot + 1 + rng.integers(len(self.snapshots), size=int(snap.sum()))
        return chosen

    def policies(
        self, rules: Rules, rng: np.random.Generator, frozen: Callable[[StateDict], Any]
    ) -> list[BatchPolicy | ScalarOpponent | None]:
        """The player of every slot (``None`` for ``self`` and for an empty
        ``imitation``), seeded from ``rng``; ``frozen(state)`` builds a network from a
        state dict. Frozen networks sample their moves, as the learner does."""

        def seed() -> int:
            return int(rng.integers(2**31))

        out: list[BatchPolicy | ScalarOpponent | None] = [None]
        for kind in self.bots + self.agents:  # a greedy policy:NAME plays as one batch: the moves it makes
            name, eps = parse_kind(kind)
            s = seed()
            agent = None if kind in self.bots else make_agent(name, rules, s)
            if agent is None or (isinstance(agent, PolicyAgent) and not (agent.sample or agent.relabel)):
                player = make_batched_policy(name, rules.players, s) if agent is None else GreedyBatch(agent.net)
                out.append(player if eps == 0 else NoisyPolicy(player, eps, s))
            else:
                out.append(ScalarOpponent(name, rules, s, eps))
        out.append(None if self.imitation is None else TorchPolicy(frozen(self.imitation), seed=seed()))
        out += [TorchPolicy(frozen(s), seed=seed()) for s in self.snapshots]
        return out

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        return {"snapshots": list(self.snapshots), "imitation": self.imitation}

    def load_state(self, state: Mapping[str, Any]) -> None:
        self.snapshots = list(state["snapshots"])[-self.max_snapshots :]
        self.imitation = state["imitation"]


class ScalarOpponent:
    """A view-based agent (``hard`` ...) playing seats of batched games. Each game it
    plays in gets a :class:`~dehla_env.engine.MatchState` dealt the engine's cards, to
    which every move of that game (every seat's) and every R1.4 draw is applied, so
    :func:`~dehla_env.view.view_of` gives the agent exactly what its seat may know (the
    batched engine and the reference engine agree move for move:
    ``tests/test_vector_equivalence.py``). A fresh agent per seat and hand, as in the
    arena."""

    def __init__(self, spec: str, rules: Rules, seed: int, eps: float = 0.0) -> None:
        """``eps``: the probability, per decision, of a uniformly random legal move in
        place of the agent's (a noisy kind); its draws come from a generator of their own,
        so the agents' seeds are those of ``eps`` 0."""
        self.spec, self.rules, self.eps = spec, rules, eps
        self.rng = np.random.default_rng(seed)
        self.noise = np.random.default_rng([seed, 1]) if eps > 0 else None
        self.games: dict[int, tuple[MatchState, list[Agent]]] = {}

    def start(self, engine: BatchEngine, games: np.ndarray) -> None:
        """Mirror the hands just dealt in ``games``."""
        for g in games.tolist():
            match = MatchState(self.rules, int(engine.dealer[g]))
            match.apply_deal([int(c) for c in engine.deck[g]])
            seeds = self.rng.integers(2**31, size=self.rules.players).tolist()
            self.games[g] = (match, [make_agent(self.spec, self.rules, s) for s in seeds])
            self._chance(engine, g)

    def _chance(self, engine: BatchEngine, g: int) -> None:
        match = self.games[g][0]
        if match.is_chance() and not match.hand.complete:
            match.apply_draw(int(engine.draw_card[g]))  # R1.4, as the vector env drew it

    def __call__(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The agents' moves for ``seats``, the seats to act in ``games``."""
        out = np.empty(len(games), np.int64)
        for i, (g, s) in enumerate(zip(games.tolist(), seats.tolist(), strict=True)):
            match, agents = self.games[g]
            if self.noise is not None and self.noise.random() < self.eps:
                legal = match.legal_actions()
                out[i] = legal[int(self.noise.integers(len(legal)))]
            else:
                out[i] = agents[s].act(view_of(match, s))
        return out

    def played(self, engine: BatchEngine, games: np.ndarray, actions: np.ndarray, ended: np.ndarray) -> None:
        """Apply the moves just stepped to the mirrored ones of ``games``; forget those
        whose hand ``ended`` (the engine has dealt them anew)."""
        for g, a, over in zip(games.tolist(), actions.tolist(), ended.tolist(), strict=True):
            if g not in self.games:
                continue
            match = self.games[g][0]
            match.apply_action(a)
            if over:
                if not match.hand.complete:  # the two engines disagree: never seen, never ignored
                    raise RuntimeError(f"game {g}: the batched hand ended, its mirror did not")
                del self.games[g]
            else:
                self._chance(engine, g)


class NoisyPolicy:
    """A batched policy that, with probability ``eps`` per decision, plays a uniformly
    random legal move instead (a noisy kind); its draws come from a generator of its
    own, so the inner policy sees the seed it would have had without noise."""

    def __init__(self, inner: BatchPolicy, eps: float, seed: int) -> None:
        self.inner, self.eps = inner, eps
        self.rng = np.random.default_rng([seed, 1])

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.asarray(self.inner(obs, mask), np.int64).copy()
        swap = self.rng.random(len(actions)) < self.eps
        if swap.any():
            actions[swap] = random_legal(mask[swap], self.rng)
        return actions
