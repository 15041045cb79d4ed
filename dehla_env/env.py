"""Dehla Pakad family as a PettingZoo AEC environment.

``dehla_env.env(rules="dehla", **options)`` returns the environment with PettingZoo's
usual safety semantics (illegal action terminates with -1, action bounds asserted, call
order enforced: :class:`SafeEnv`, the three wrappers in one layer);
``dehla_env.raw_env(...)`` is the bare one.

====================  ==================================================================
Import                ``from dehla_env import env, raw_env``
Rulesets              every preset of :data:`dehla_env.rules.PRESET_TABLE` (RULES.md)
Agents                ``player_0`` .. ``player_3`` (``player_5`` with ``players=6``)
Action space          ``Discrete(85)``: cards 0..51, trump suits 52..55, pass 56,
                      bids 57..84 (see :mod:`dehla_env.actions`)
Observation space     ``Dict(observation=Box(0, 3, (D,), float32),
                      action_mask=Box(0, 1, (85,), int8))``; D = 826 with four players
                      (1,116 with six); ``observation="structured"`` gives a Dict of the
                      named slices plus the ordered ``history`` instead of the flat vector
State space           ``Box(0, 3, (S,), float32)``: privileged, see :meth:`raw_env.state`
====================  ==================================================================

Every decision of every ruleset is an agent action: card plays, trump choices (R1.4
chosen, R2.4b open, R2.4c closed secret choice, R2.4d named, R3.1, R4.2 after four
passes), bids and passes. Chance steps (the deal, the R1.4 draw) happen inside the
environment from its own generator; ``reset(seed=...)`` makes an episode reproducible,
including the first dealer (R1.10).

Observation
    Seat-relative (the observer is relative seat 0) and built from named slices; the
    table of slices and shapes is in :mod:`dehla_env.encoding`, and
    :func:`dehla_env.encoding.decode` splits a vector into them. An observation holds
    only what the seat may know (R0.6). The action mask is in the observation and also
    in ``infos[agent]["action_mask"]`` (all zeros for a seat that is not to act). The
    match is played on the reference engine; the observations are written from the
    batched engine at one game, kept in step with it
    (:class:`~dehla_env.vector.one_game.OneGame`, compiled), the same vectors as
    :func:`~dehla_env.encoding.encode_view` gives, bit for bit.

Options (keyword arguments)
    ``rules``: preset name or a :class:`~dehla_env.rules.Rules`; any other keyword not
    listed here is a rule option (``trump="chosen"``, ``kots=3``, ``players=6`` ...).
    ``episode``: ``"hand"`` (default; one hand/round, for training) or ``"match"`` (a
    whole match: kots, streaks, points and dealer rotation carried between hands).
    ``reward``: see Rewards. ``observation``: ``"flat"`` (default) or ``"structured"``.
    ``max_cycles``: truncate every agent after this many cycles (one cycle = each seat
    acting once); default none. ``first_dealer``: fix the first dealer (default: drawn).
    ``render_mode``: ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints).
    For many games at once, with compiled kernels, see :func:`dehla_env.vector.vector_env`.

Rewards (zero-sum between the sides; partners always receive the same reward)
    ``"win"`` (default): +1 to the side that wins the hand/round, -1 to the other, 0
    when there is no winner (R2.5 2-2). In ``coat-pees`` the winner is the side that
    did not lose (R4.6). With ``episode="match"``: +1/-1 for the match winner at the
    end, 0 for a draw, nothing per hand.
    ``"tens"`` (tens rulesets): (own tens - other tens) / tens in the deck per hand.
    ``"tricks"``: (own tricks - other tricks) / tricks per hand.
    ``"points"`` (``court-piece``, ``coat-pees``): the hand's points for the side minus
    the other side's, scaled to [-1, 1] (court-piece: round + kot, /2; coat-pees:
    the R4.4 score change, /26).
    With ``episode="match"`` the per-hand rewards of ``tens``/``tricks``/``points``
    are paid at the end of every hand.

Privileged state (for centralised critics; never give it to a policy)
    :meth:`raw_env.state`: every seat's hand (n x 52, absolute seats), the cards not
    yet dealt (52), the true trump suit (4, a closed trump included), then seat 0's
    observation. :meth:`raw_env.privileged_observation` is the same
    information in one seat's frame: its observation, then the other hands by
    relative seat, the undealt cards and the true trump.

Version history
    v0 (0.1.0): first release: all four rulesets, flat and structured observations,
    hand and match episodes, rewards win/tens/tricks/points.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .actions import MASK_DTYPE, NUM_ACTIONS, card_mask
from .encoding import (
    NUM_BID_CHOICES,
    history_from_view,
    layout_for,
    privileged_features,
    privileged_size,
    structured_from_flat,
)
from .engine import MatchState, Phase
from .episode import EPISODES, ResetNeededError
from .errors import IllegalMoveError
from .render import render_match
from .rewards import RewardKind, last_hand_side0_reward, match_reward, reward_kind
from .rules import Rules, rules_from
from .seats import side_of
from .vector.one_game import OneGame
from .view import view_of

_PLAY = Phase.PLAY
_DRAW = Phase.DRAW
OBSERVATIONS = ("flat", "structured")


#: what exists only once ``reset()`` started an episode (see :class:`_EpisodeAttribute`)
_EPISODE_ATTRIBUTES = frozenset(
    (
        "agents",
        "num_agents",
        "agent_selection",
        "rewards",
        "_cumulative_rewards",
        "terminations",
        "truncations",
        "infos",
    )
)


class _EpisodeAttribute:
    """The class's stand-in for an attribute that exists once ``reset()`` started an
    episode: reading it before is a :class:`ResetNeededError` naming it. ``reset()``
    sets the instance's own, which then comes first (a descriptor without ``__set__``).
    Not a ``__getattr__``: a class with one has every attribute read of its methods
    go the slow way (CPython does not specialise them), about a tenth of a step."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        raise ResetNeededError(self.name)


def _agent_name(seat: int) -> str:
    return f"player_{seat}"


class raw_env(AECEnv):
    """The bare AEC environment; see the module docstring."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "dehla_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | Rules = "dehla",
        render_mode: str | None = None,
        episode: str = "hand",
        reward: str = "win",
        observation: str = "flat",
        max_cycles: int | None = None,
        first_dealer: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.rules = rules_from(rules, options)
        if episode not in EPISODES:
            raise ValueError(f"episode must be 'hand' or 'match', not {episode!r}")
        self.reward_kind = reward_kind(reward, self.rules)
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be 'flat' or 'structured', not {observation!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.episode = episode
        self.match_episode = episode == EPISODES[1]
        self.structured = observation == OBSERVATIONS[1]
        n_seats = self.rules.players
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
        ):
            raise ValueError(f"max_cycles must be a positive integer or None, not {max_cycles!r}")
        if first_dealer is not None and (
            isinstance(first_dealer, bool) or not isinstance(first_dealer, int) or not 0 <= first_dealer < n_seats
        ):
            raise ValueError(f"first_dealer must be a seat 0..{n_seats - 1} or None, not {first_dealer!r}")
        self.max_cycles = max_cycles
        self.first_dealer = first_dealer
        n = self.rules.players
        self.num_players = n
        self.possible_agents = [_agent_name(s) for s in range(n)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self._rows = OneGame(self.rules)  # what the observations are written from, kept in step
        self.layout = layout_for(n)
        obs_space = self._make_observation_space()
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        state_size = privileged_size(self.rules) + self.layout.size
        self.state_space = spaces.Box(0.0, 3.0, (state_size,), np.float32)
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._zero_mask.flags.writeable = False
        self._mask = self._zero_mask  # the legal mask of the agent to act, cached per step
        self._paid = False  # whether the last step paid rewards (they are zeroed on the next)
        self._rng = np.random.default_rng()
        self.match: MatchState | None = None

    # ------------------------------------------------------------------ spaces
    def _make_observation_space(self) -> spaces.Dict:
        mask = spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)
        if not self.structured:
            return spaces.Dict(
                {"observation": spaces.Box(0.0, 3.0, (self.layout.size,), np.float32), "action_mask": mask}
            )
        parts: dict[str, spaces.Space] = {
            s.name: spaces.Box(0.0, 3.0, s.shape, np.float32) for s in self.layout.slices.values()
        }
        deck = self.rules.deck_size
        parts["history"] = spaces.Box(-1, max(deck, NUM_BID_CHOICES), (deck, 3), np.int16)
        return spaces.Dict({"observation": spaces.Dict(parts), "action_mask": mask})

    @property
    def num_agents(self) -> int:
        if self.match is None:
            raise ResetNeededError("num_agents")
        return len(self.agents)

    def _started(self, call: str) -> MatchState:
        """The match in play; :class:`ResetNeededError` naming ``call`` before ``reset()``."""
        match = self.match
        if match is None:
            raise ResetNeededError(call)
        return match

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be a non-negative integer or None, not {seed!r}")
            self._rng = np.random.default_rng(seed)
        self.match = MatchState.new(self.rules, self._rng, self.first_dealer)
        self._rows.tally(self.match)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"action_mask": self._zero_mask} for a in self.agents}
        self.agent_selection = ""
        self._steps = 0
        self._paid = False
        self._advance_chance()
        self._select_and_inform()

    def _advance_chance(self) -> None:
        """Resolve chance steps (deals, the R1.4 draw) until a seat must act or the
        episode ends; the observations' game (:class:`~dehla_env.vector.one_game.OneGame`)
        takes each as the match did."""
        match = self.match
        assert match is not None
        while match.is_chance():
            if not self.match_episode and match.hand.complete:
                return
            drawing = match.hand.phase == _DRAW
            self._chance(match)
            if drawing:  # R1.4
                self._rows.draw(match.hand)
            else:
                self._rows.deal(match.hand)

    def _chance(self, match: MatchState) -> None:
        """One chance step of ``match``: the deal, or the R1.4 draw, from the env's
        generator (a subclass may take them from elsewhere, as the tests that replay
        the vector env's games do)."""
        match.sample_chance(self._rng)

    def _episode_over(self) -> bool:
        match = self.match
        assert match is not None
        return match.is_terminal() or (not self.match_episode and match.hand.complete)

    def _select_and_inform(self) -> None:
        """Select the agent to act and give it its mask in ``infos``; every other agent's
        info holds an all-zero mask. Only the two infos that change are rebuilt."""
        match = self.match
        assert match is not None
        if self._episode_over():
            self._mask = self._zero_mask
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"action_mask": self._zero_mask}
            return
        seat = match.current_player()
        mask = self._mask = self._legal_mask()
        previous = self.agent_selection
        agent = self.agent_selection = self.possible_agents[seat]
        infos = self.infos
        if previous != agent and previous in infos:
            infos[previous] = {"action_mask": self._zero_mask}
        infos[agent] = {"action_mask": mask}

    def _legal_mask(self) -> np.ndarray:
        """The mask of the agent to act: set in a ``bytearray`` and viewed as int8 (a
        third of the cost of numpy's fancy assignment for a handful of moves)."""
        assert self.match is not None
        flags = bytearray(NUM_ACTIONS)
        for a in self.match.legal_actions():
            flags[a] = 1
        return np.frombuffer(flags, MASK_DTYPE)

    def step(self, action: Any) -> None:
        """Apply the action of the agent to act. Only integers are actions (Python ints,
        numpy integer scalars); anything else, like an illegal move, raises
        :class:`~dehla_env.errors.IllegalMoveError` and changes nothing (R5). A dead
        agent's only action is ``None`` (PettingZoo)."""
        match = self.match
        if match is None:
            raise ResetNeededError("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hands_before = match.hands_completed
        match.apply_action(action)  # integers only; IllegalMoveError names move, seat and rule (R5)
        self._rows.step(action if type(action) is int else int(action))
        self._cumulative_rewards[agent] = 0.0  # only once the move is accepted (R5)
        if self._paid:  # rewards are nonzero only on the step that ends a hand
            for a in self.agents:
                self.rewards[a] = 0.0
            self._paid = False
        hand = match.hand
        if hand.phase == _PLAY:  # the usual step: a card played, and the next is due
            mask = self._mask = card_mask(hand.legal_card_mask())  # as _select_and_inform
            nxt = self.agent_selection = self.possible_agents[hand.to_act]
            if nxt != agent:
                self.infos[agent] = {"action_mask": self._zero_mask}
            self.infos[nxt] = {"action_mask": mask}
        else:
            if match.hands_completed > hands_before:
                self._rows.tally(match)
                self._pay_hand_rewards()
                self._paid = True
            if match.is_chance():
                self._advance_chance()
            self._select_and_inform()
        if self.max_cycles is not None:
            self._steps += 1
            if self._steps >= self.max_cycles * self.num_players and not any(self.terminations.values()):
                for a in self.agents:
                    self.truncations[a] = True
        if self._paid:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _pay_hand_rewards(self) -> None:
        match = self.match
        assert match is not None
        if self.reward_kind is RewardKind.WIN and self.match_episode:
            side0 = match_reward(match.winner)
        else:
            side0 = last_hand_side0_reward({self.reward_kind: 1.0}, match)
        for a in self.agents:
            self.rewards[a] = side0 if side_of(self.agent_name_mapping[a]) == 0 else -side0

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, Any]:
        return self._observe(self._started("observe()"), agent)

    def _observe(self, match: MatchState, agent: str) -> dict[str, Any]:
        seat = self.agent_name_mapping[agent]
        flat = self._rows.observe(seat)
        mask = self._mask if agent == self.agent_selection else self._zero_mask
        if not self.structured:
            return {"observation": flat, "action_mask": mask.copy()}
        history = history_from_view(view_of(match, seat))
        return {"observation": structured_from_flat(flat, history, self.num_players), "action_mask": np.array(mask)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``, read once (the loop of every PettingZoo user calls it at
        every step)."""
        match = self.match
        if match is None:
            raise ResetNeededError("last()")
        agent = self.agent_selection
        if observe and not self.structured:  # the usual call, as _observe makes it
            seat = self.agent_name_mapping[agent]
            obs: Any = {"observation": self._rows.observe(seat), "action_mask": self._mask.copy()}
        else:
            obs = self._observe(match, agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def state(self) -> np.ndarray:
        """Privileged global state (see the module docstring). For critics only."""
        match = self._started("state()")
        return np.concatenate([privileged_features(match, 0), self._rows.observe(0)])

    def privileged_observation(self, agent: str) -> np.ndarray:
        """One seat's observation followed by what it cannot see (critics only)."""
        match = self._started("privileged_observation()")
        seat = self.agent_name_mapping[agent]
        return np.concatenate([self._rows.observe(seat), privileged_features(match, seat)])

    # ------------------------------------------------------------------ output
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'human'")
            return None
        text = render_match(self._started("render()"))
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass


for _name in _EPISODE_ATTRIBUTES - {"num_agents"}:  # a property of its own
    setattr(raw_env, _name, _EpisodeAttribute(_name))


def _guarded(name: str) -> property:
    """A forwarding property that, like OrderEnforcingWrapper, refuses before reset()."""

    def get(self: SafeEnv) -> Any:
        if not self._has_reset:
            raise ResetNeededError(name)
        return getattr(self._raw, name)

    return property(get)


def _forward(name: str) -> property:
    return property(lambda self: getattr(self._raw, name))


class SafeEnv(wrappers.OrderEnforcingWrapper):
    """What ``env()`` returns: the semantics of PettingZoo's three safety wrappers
    (``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env,
    illegal_reward=-1)))``) in one layer, with the attributes a loop reads on every step
    forwarded directly instead of through three ``__getattr__`` chains.

    In that order: calls before ``reset()`` are errors (order enforcing); an action
    outside the action space fails ``"action is not in action space"`` (bounds); an
    action the mask forbids ends the game with -1 for the agent that made it and a
    warning (illegal moves). ``tests/test_env_api.py`` holds it to the three wrappers.
    """

    agent_selection = _guarded("agent_selection")
    rewards = _guarded("rewards")
    terminations = _guarded("terminations")
    truncations = _guarded("truncations")
    infos = _guarded("infos")
    agents = _guarded("agents")
    num_agents = _guarded("num_agents")
    possible_agents = _forward("possible_agents")
    max_num_agents = _forward("max_num_agents")
    _cumulative_rewards = _forward("_cumulative_rewards")

    def __init__(self, env: raw_env, illegal_reward: float = -1) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_value = illegal_reward
        self._terminated = False  # terminated by an illegal move

    def __getattr__(self, name: str) -> Any:
        """Reached when a guarded property refused (before ``reset()``) or for a name
        forwarded to the raw env: the episode's attributes are then a
        :class:`ResetNeededError` naming them (not PettingZoo's plain AttributeError)."""
        if name in _EPISODE_ATTRIBUTES and not self.__dict__.get("_has_reset", False):
            raise ResetNeededError(name)
        return super().__getattr__(name)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated = False
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            raise ResetNeededError("observe()")
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` of the raw env once reset was checked, instead of through
        four guarded properties."""
        if not self._has_reset:
            raise ResetNeededError("last()")
        return self._raw.last(observe)

    def render(self) -> Any:
        if not self._has_reset:
            raise ResetNeededError("render()")
        return self._raw.render()

    def state(self) -> np.ndarray:
        if not self._has_reset:
            raise ResetNeededError("state()")
        return self._raw.state()

    def step(self, action: Any) -> None:
        raw = self._raw
        # order enforcing
        if not self._has_reset:
            raise ResetNeededError("step()")
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        # bounds
        if type(action) is int:  # the common case, as Discrete.contains decides it
            inside = 0 <= action < NUM_ACTIONS
        else:
            inside = raw.action_spaces[agent].contains(action)
        assert (action is None and dead) or inside, "action is not in action space"
        if dead:
            if self._terminated:
                raw._was_dead_step(action)
            else:
                raw.step(action)
            return
        # illegal moves terminate the game, the mover losing. The mask the wrapper
        # checks is the agent's legal moves, which the engine checks too, changing
        # nothing when it refuses (R5): its refusal is the wrapper's check.
        try:
            raw.step(action)
        except IllegalMoveError:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's safety semantics (:class:`SafeEnv`)."""
    return SafeEnv(raw_env(**kwargs), illegal_reward=-1)
