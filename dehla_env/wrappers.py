"""Single-agent gymnasium environments: the learner plays one seat or one side.

``SingleAgentEnv`` drives a :class:`dehla_env.env.raw_env` and plays every seat that is
not the learner's with a fixed policy, so a standard single-agent algorithm (PPO,
DQN, sb3-contrib ``MaskablePPO``) can train on the game. Rules, observations and
rewards are the AEC environment's own (see :mod:`dehla_env.env`); this module adds
only the seat bookkeeping.

====================  ==================================================================
Import                ``from dehla_env.wrappers import SingleAgentEnv``
Gymnasium ids         ``DehlaPakad-v0`` (``dehla``), ``DehlaPakadDirect-v0``
                      (``dehla-direct``), ``CourtPiece-v0``, ``CoatPees-v0``: registered
                      by :mod:`agents.envs` (``import agents``), which also turns agent
                      specs into policies; ``gymnasium.make("agents:DehlaPakad-v0")``
                      works without an import; ``max_episode_steps=200``
Action space          ``Discrete(85)``, the flat layout of :mod:`dehla_env.actions`
Observation space     exactly the AEC environment's: ``Dict(observation=...,
                      action_mask=Box(0, 1, (85,), int8))``, flat or structured
====================  ==================================================================

Learner
    ``learner="seat"`` (default): the learner is seat ``learner_seat``. ``learner="side"``:
    the learner plays every seat of ``learner_seat``'s side (seats ``s`` with
    ``side_of(s) == side_of(learner_seat)``); each step it acts for whichever of them is to act,
    and ``info["seat"]`` says which. Observations are always that seat's own
    (seat-relative, R0.6): the learner never sees a partner's hand.

Other seats
    ``opponents``: one policy for every seat that is not the learner's (the partner
    included, unless ``partner`` is given), or a dict ``{seat: policy}``. ``partner``: a
    policy for the learner's partner seat(s) (``learner="seat"`` only). A policy is an
    object with ``act(view) -> action`` (an :class:`agents.base.Agent`, say) or any
    callable ``f(view) -> action`` on the seat's :class:`~dehla_env.view.PlayerView`.
    Seats without a policy play uniformly random legal moves, drawn from the env's own
    generator. ``reset(seed=s)`` re-seeds the deal, those random seats and every policy
    with a ``seed(int)`` method from ``s`` (through :class:`numpy.random.SeedSequence`),
    so an episode is fully reproducible; a plain callable is not seeded and must be
    deterministic (or seeded by its owner) for that to hold. To name bots by spec
    (``opponents="hard"``, ``"policy:dehla"``), use the ids that :mod:`agents.envs`
    registers: ``import agents`` then ``gymnasium.make("DehlaPakad-v0", opponents="hard")``.

Rewards
    The learner's side's reward from the AEC environment (``reward="win"`` / ``"tens"``
    / ``"tricks"`` / ``"points"``, see :mod:`dehla_env.env`), summed over every move
    since the learner's previous action; in practice it arrives on the step that ends
    the hand (``episode="hand"``) or at each hand's end / the match's end
    (``episode="match"``).

Episodes and termination
    ``episode="hand"`` (default) or ``"match"``. ``terminated`` is true when the hand
    (or match) is over; the final observation is from the seat that acted last and its
    mask is all zeros. ``truncated`` comes from the ``TimeLimit`` that
    ``gymnasium.make`` adds (``max_episode_steps=200``: a hand has at most 13 cards,
    one trump or bid decision per seat, or 26 cards with six players; give
    ``gymnasium.make(..., episode="match", max_episode_steps=10_000)`` for matches), or
    from ``max_cycles`` if passed through to the AEC environment.

Illegal actions
    ``SingleAgentEnv`` raises :class:`dehla_env.errors.IllegalMoveError` for an action
    that is not legal and leaves the episode as it was (R5), like ``raw_env``: use
    ``info["action_mask"]`` / :meth:`~SingleAgentEnv.action_masks`.
    ``illegal_action="terminate"`` instead ends the episode with reward -1 and
    ``info["illegal_action"] = True`` (the single-agent form of PettingZoo's
    ``TerminateIllegalWrapper``, as ``dehla_env.env()`` does). The registered gymnasium
    ids default to ``"terminate"``, because generic tools (``check_env``, random
    baselines) step with unmasked ``action_space.sample()``; pass
    ``illegal_action="raise"`` to ``gymnasium.make`` for the strict behaviour.

Options
    ``rules`` (preset name or :class:`~dehla_env.rules.Rules`), ``episode``, ``reward``,
    ``observation`` (``"flat"`` / ``"structured"``), ``render_mode`` (``"ansi"``:
    ``render()`` returns the text of the whole table, every hand shown, for people
    watching; ``"human"``: printed after every reset and step), ``illegal_action``; any other keyword goes to
    :class:`~dehla_env.env.raw_env`: rule options (``trump="chosen"``,
    ``players=6``...), ``first_dealer``, ``max_cycles``.

Example::

    import gymnasium, agents  # agents registers the ids; bots by spec
    import numpy as np

    env = gymnasium.make("DehlaPakad-v0", trump="chosen", learner="side", opponents="hard")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        obs, reward, terminated, truncated, info = env.step(action)
    print(reward)  # +1 if the learner's side won the hand, else -1

Version history
    v0 (0.1.0): first release.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from .actions import NUM_ACTIONS
from .env import raw_env
from .episode import ResetNeededError
from .errors import IllegalMoveError
from .rules import Rules
from .seats import side_of
from .view import PlayerView, view_of


class ViewAgent(Protocol):
    """Anything that plays a seat from its view (``agents.base.Agent`` is one)."""

    def act(self, view: PlayerView) -> int: ...


#: a seat's player: an agent-like object, or a callable on the seat's view
ViewPolicy = ViewAgent | Callable[[PlayerView], int]

#: the most learner decisions one hand can take, generously rounded up (see the docstring)
MAX_HAND_STEPS = 200

ILLEGAL_ACTION_MODES = ("raise", "terminate")


class SingleAgentEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One seat (or side) against fixed policies; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        rules: str | Rules = "dehla",
        learner_seat: int = 0,
        learner: str = "seat",
        opponents: ViewPolicy | Mapping[int, ViewPolicy] | None = None,
        partner: ViewPolicy | None = None,
        episode: str = "hand",
        reward: str = "win",
        observation: str = "flat",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **rule_options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # as gymnasium itself does: a warning, not an error (SB3's make_vec_env asks
            # every env for "rgb_array"); render() then draws nothing
            gymnasium.logger.warn(
                f"render_mode {render_mode!r} is not supported ({', '.join(self.metadata['render_modes'])}); "
                "render() will return None"
            )
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, not {illegal_action!r}")
        self.raw = raw_env(
            rules=rules,
            render_mode=None if render_mode not in self.metadata["render_modes"] else "ansi",
            episode=episode,
            reward=reward,
            observation=observation,
            **rule_options,
        )
        n = self.raw.num_players
        if isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)):
            raise ValueError(f"learner_seat must be a seat number, not {learner_seat!r}")
        learner_seat = int(learner_seat)
        if not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be a seat 0..{n - 1}, not {learner_seat}")
        if learner == "seat":
            seats: tuple[int, ...] = (learner_seat,)
        elif learner == "side":
            if partner is not None:
                raise ValueError("partner is for learner='seat'; with learner='side' the learner plays its partners")
            seats = tuple(s for s in range(n) if side_of(s) == side_of(learner_seat))
        else:
            raise ValueError(f"learner must be 'seat' or 'side', not {learner!r}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.learner = learner
        self.learner_seat = learner_seat
        self.learner_seats = seats
        self.rules = self.raw.rules
        self.num_players = n
        self._is_learner = [s in seats for s in range(n)]
        self._side_agent = self.raw.possible_agents[learner_seat]  # partners' rewards are equal
        self._policies: list[ViewPolicy | None] = [None] * n
        self.set_policies(opponents, partner)
        self.observation_space = self.raw.observation_spaces[self._side_agent]
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._seat = learner_seat  # the learner seat to act (or that acted last)
        self._pending = 0.0  # the side's reward since the learner's last action
        self._done = True
        self._random_seats = np.random.default_rng()  # the seats without a policy

    # ------------------------------------------------------------------ policies
    def set_policies(
        self, opponents: ViewPolicy | Mapping[int, ViewPolicy] | None = None, partner: ViewPolicy | None = None
    ) -> None:
        """Set the players of the seats that are not the learner's (see the module
        docstring); takes effect from the next move."""
        self._policies = self._make_policies(opponents, partner)

    def _make_policies(self, opponents: Any, partner: Any) -> list[ViewPolicy | None]:
        n = self.num_players
        policies: list[ViewPolicy | None] = [None] * n
        if isinstance(opponents, Mapping):
            for seat in opponents:
                if not isinstance(seat, (int, np.integer)) or not 0 <= seat < n or self._is_learner[int(seat)]:
                    raise ValueError(f"opponents: {seat!r} is not a seat played by a policy")
            for s in range(n):
                if not self._is_learner[s]:
                    policies[s] = opponents.get(s)
        elif opponents is not None:
            policies = [None if self._is_learner[s] else opponents for s in range(n)]
        if partner is not None:
            for s in range(n):
                if not self._is_learner[s] and side_of(s) == side_of(self.learner_seat):
                    policies[s] = partner
        for s in range(n):
            p = policies[s]
            if self._is_learner[s] or p is None:
                continue
            if isinstance(p, str):
                raise TypeError(
                    f"seat {s}: {p!r} is an agent spec; SingleAgentEnv takes agents or callables on a PlayerView. "
                    "For specs, import agents and use gymnasium.make('DehlaPakad-v0', opponents=...) "
                    "(or agents.envs.single_agent_env)"
                )
            if not (callable(getattr(p, "act", None)) or callable(p)):
                raise TypeError(f"the policy for seat {s} is neither an agent (act(view)) nor a callable: {p!r}")
        return policies

    def _seed_policies(self, seed: int) -> None:
        """Give every distinct seedable policy its own stream derived from ``seed``; the
        random seats draw from a further stream of the same sequence."""
        agents: list[Any] = []
        for p in self._policies:
            if p is not None and callable(getattr(p, "seed", None)) and all(p is not a for a in agents):
                agents.append(p)
        children = np.random.SeedSequence(seed).spawn(len(agents) + 1)
        for agent, child in zip(agents, children):
            agent.seed(int(child.generate_state(1)[0]))
        self._random_seats = np.random.default_rng(children[-1])

    def _policy_action(self, seat: int) -> int:
        policy = self._policies[seat]
        match = self.raw.match
        assert match is not None
        if policy is None:
            legal = match.legal_actions()
            return legal[int(self._random_seats.integers(len(legal)))]
        view = view_of(match, seat)
        act = getattr(policy, "act", None)
        return int(act(view)) if act is not None else int(policy(view))  # type: ignore[operator]

    def _advance(self) -> None:
        """Play the other seats until a learner seat must act or the episode ends."""
        raw = self.raw
        while not self._episode_ended():
            seat = raw.agent_name_mapping[raw.agent_selection]
            if self._is_learner[seat]:
                self._seat = seat
                return
            raw.step(self._policy_action(seat))
            self._pending += raw.rewards[self._side_agent]
        self._done = True

    def _episode_ended(self) -> bool:
        raw = self.raw
        return any(raw.terminations.values()) or any(raw.truncations.values())

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed_policies(seed)
        self.raw.reset(seed=seed)
        self._pending = 0.0
        self._seat = self.learner_seat
        self._done = False
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: int | np.integer) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """The learner's action, then the other seats until the learner acts again:
        ``(observation, reward, terminated, truncated, info)`` (see the module page)."""
        if self.raw.match is None:
            raise ResetNeededError("step()")
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        raw = self.raw
        try:
            raw.step(action)  # integers only; IllegalMoveError names the move, seat and rule (R5)
        except IllegalMoveError:
            if self.illegal_action == "raise":
                raise
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        self._pending += raw.rewards[self._side_agent]
        self._advance()
        reward, self._pending = float(self._pending), 0.0
        terminated = any(raw.terminations.values())
        truncated = not terminated and any(raw.truncations.values())
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, bool(terminated), bool(truncated), self._info()

    def _observation(self) -> dict[str, Any]:
        return self.raw.observe(self.raw.possible_agents[self._seat])

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask().astype(np.int8), "seat": self._seat}

    def _mask(self) -> np.ndarray:
        raw = self.raw
        if self._done:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return np.asarray(raw.infos[raw.possible_agents[self._seat]]["action_mask"])

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as a bool array (the sb3-contrib ``MaskablePPO`` hook)."""
        if self.raw.match is None:
            raise ResetNeededError("action_masks()")
        return self._mask().astype(bool)

    def render(self) -> str | None:
        if self.render_mode not in self.metadata["render_modes"]:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'human'")
            return None
        text = self.raw.render()
        if self.render_mode == "human":
            print(f"{text}\n")
            return None
        return text

    def close(self) -> None:
        self.raw.close()


__all__ = ["ILLEGAL_ACTION_MODES", "MAX_HAND_STEPS", "SingleAgentEnv", "ViewAgent", "ViewPolicy"]
