"""A turn-based vector environment: ``N`` games of one ruleset, one decision per game per step.

``dehla_env.vector.vector_env(rules="dehla", num_envs=N, seed=S, **options)``

====================  ==================================================================
Rulesets              ``dehla`` (both trump modes), ``dehla-direct`` (every trump,
                      scoring and match option, four or six players), ``court-piece``,
                      ``coat-pees``: the options of :func:`dehla_env.make_rules`
Episode               one hand (round) per episode (``episode="hand"``, the reference
                      env's default); each episode is a fresh match: a uniformly random
                      deal and first dealer (R1.10, as ``MatchState.new``; fixed with
                      ``first_dealer=``)
Action                ``actions``: (N,) ints in the flat layout of
                      :mod:`dehla_env.actions` (cards 0..51, trump suits 52..55, pass 56,
                      bids 57..84), one per game, for the seat to act in that game
Observation           ``obs``: (N, D) float32, the flat observation of
                      :mod:`dehla_env.encoding` for the seat to act next (D = 826 with
                      four players, 1,116 with six), identical to the reference env's
``info``              ``"action_mask"``: (N, 85) bool; ``"seat"``: (N,) the seat to act
Rewards               (N, seats) float32: every seat's reward from that step, nonzero only
                      when a game's hand ended; ``reward=`` ``"win"`` (default),
                      ``"tens"``, ``"tricks"``, ``"points"``, as
                      :class:`dehla_env.env.raw_env` pays them
Termination           ``terminated[i]``: game ``i``'s hand ended at this step; ``truncated``
                      is always False
====================  ==================================================================

Chance steps (the deal, the R1.4 draw) are resolved inside :meth:`VectorEnv.step` from
the env's one seeded ``np.random.Generator``. A game whose hand ends is reset at once
(a new deal, a new first dealer); what it ended with is in ``info``:

* ``"final_index"``: (K,) the games that ended (``np.flatnonzero(terminated)``);
* ``"final_seat"``: (K,) the seat whose move ended the hand;
* ``"final_obs"``: the final observation (the reference env's observation once the hand
  is over, match values after that one hand included): with ``final_obs="actor"`` (the
  default) (K, D) for the seat whose move ended the hand; with ``final_obs="all"`` (K,
  seats, D) for every seat; with ``final_obs=s`` (an int) (K, D) for seat ``s``; none
  with ``final_obs=False``. (Games started together stay in step, so many can end at
  once: "all" is seats x the memory of one observation batch.)
* ``"final_outcome"``: dict of (K,) / (K, 2) arrays: ``winner`` (side, -1: none),
  ``kot``, ``all_tens``, ``score`` (R4.4), ``tricks``, ``tens``, ``trump``,
  ``trump_maker``, ``dealer``, ``contract_seat``, ``contract_level``.

Arrays returned by :meth:`VectorEnv.step` are never overwritten while anything still
refers to them (``copy=True``, the default): the env recycles an observation or mask
buffer only once nothing but the env holds it (CPython reference count; a numpy view
or a tensor from ``torch.from_numpy`` counts as a holder), so a training loop that
rebinds ``obs`` each step gets double buffering, and one that keeps every ``obs``
gets new arrays. With ``copy=False`` the same two buffers are always overwritten
(copy what you keep).

An action that is not legal raises :class:`dehla_env.IllegalMoveError` naming the game,
the seat and the move, and changes nothing.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from gymnasium import spaces

from ..actions import NUM_ACTIONS, PASS_ACTION, action_text
from ..cards import NUM_CARDS
from ..env import EPISODES
from ..errors import IllegalMoveError
from ..rewards import reward_kind, side0_reward
from ..rules import Rules, make_rules
from .engine import BID, DONE, DRAW, PLAY, TRUMP, BatchEngine
from .observe import BatchObserver

_POOL_SIZE = 3


def _unheld_refcount() -> int:
    """``sys.getrefcount`` of a pooled buffer that nobody else holds, measured the way
    :func:`_recycled` looks at its buffers (the list, the loop variable, the argument)."""
    pool = [np.empty(1)]
    for buf in pool:
        return sys.getrefcount(buf)
    raise AssertionError


_UNHELD = _unheld_refcount()


def _recycled(pool: list[np.ndarray], shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A buffer from ``pool`` that nothing outside the pool refers to any more, else a
    new one, pooled in place of the oldest (which its holder keeps)."""
    for buf in pool:
        if sys.getrefcount(buf) <= _UNHELD:
            return buf
    buf = np.empty(shape, dtype)
    pool.append(buf)
    if len(pool) > _POOL_SIZE:
        del pool[0]
    return buf


class VectorEnv:
    """``num_envs`` games in lockstep; see the module docstring."""

    metadata: dict[str, Any] = {"name": "dehla_vector_v0", "autoreset_mode": "same-step"}

    def __init__(
        self,
        rules: str | Rules = "dehla",
        num_envs: int = 1,
        seed: int | None = None,
        reward: str = "win",
        episode: str = "hand",
        final_obs: bool | str | int = "actor",
        copy: bool = True,
        first_dealer: int | None = None,
        **options: Any,
    ) -> None:
        if isinstance(rules, Rules):
            if options:
                raise ValueError("pass either a Rules object or a preset name with options, not both")
            self.rules = rules
        else:
            self.rules = make_rules(rules, options)
        if episode != EPISODES[0]:
            raise ValueError(
                f"the vector env plays single hands (episode='hand'), not {episode!r}; use dehla_env.env for matches"
            )
        self.reward_kind = reward_kind(reward, self.rules)
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        self.num_envs = N = int(num_envs)
        if first_dealer is not None and not 0 <= first_dealer < self.rules.players:
            raise ValueError(f"first_dealer must be a seat 0..{self.rules.players - 1}, not {first_dealer!r}")
        self.first_dealer = first_dealer
        self._final_obs: bool | str | int = "actor"
        self.copy = copy
        self.engine = BatchEngine(self.rules, N)
        self.observer = BatchObserver(self.engine)
        self.num_players = n = self.rules.players
        self.num_actions = NUM_ACTIONS
        self.observation_size = D = self.observer.size
        self.single_observation_space = spaces.Box(0.0, 3.0, (D,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self._rng = np.random.default_rng(seed)
        self._all = self.engine.all
        self._row_base = self._all * n
        self._obs: np.ndarray | None = None  # the reused buffer (copy=False)
        self._obs_pool: list[np.ndarray] = []  # returned buffers, recycled once released (copy=True)
        self._mask_pool: list[np.ndarray] = []
        self._mask = np.zeros((N, NUM_ACTIONS), bool)
        self._side_sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0).astype(np.float32)
        self._started = False
        self.final_obs = final_obs

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new hand in every game; returns ``(obs, info)``.

        ``options={"decks": (N, deck) card ids, "dealers": (N,) seats}`` deals these
        hands instead of random ones (fixed deals for evaluation and tests); the hands
        dealt by later automatic resets are random again.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        if "decks" in options or "dealers" in options:
            decks = np.asarray(options["decks"], dtype=np.int64)
            dealers = np.asarray(options["dealers"], dtype=np.int64)
            N, size = self.num_envs, self.rules.deck_size
            if decks.shape != (N, size) or dealers.shape != (N,):
                raise ValueError(f"decks must be ({N}, {size}) and dealers ({N},)")
            counts = np.zeros((N, 52), np.int64)
            np.add.at(counts, (np.repeat(np.arange(N), size), decks.reshape(-1) % 52), 1)
            if (decks < 0).any() or (decks >= 52).any() or (counts != self.rules.packs).any():
                raise ValueError("every deck must be a permutation of the pack(s) (R0.3)")
            if (dealers < 0).any() or (dealers >= self.num_players).any():
                raise ValueError("dealers must be seats")
            self.engine.deal(self._all, decks, dealers)
            self._resolve_chance(self._all)
        else:
            self._deal(self._all)
        self._started = True
        obs = self._out_obs()
        self._observe(self._all, obs, True)
        return obs, self._info()

    def _deal(self, g: np.ndarray) -> None:
        decks, dealers = self.engine.sample_deals(self._rng, len(g))
        if self.first_dealer is not None:
            dealers[:] = self.first_dealer
        self.engine.deal(g, decks, dealers)
        self._resolve_chance(g)

    def _resolve_chance(self, g: np.ndarray) -> None:
        e = self.engine
        if not e.draw_if_no_void:
            return
        dr = g[e.phase[g] == DRAW]
        if len(dr):
            e.draw(dr, e.sample_draws(self._rng, dr))

    def _out_obs(self) -> np.ndarray:
        if self.copy:
            return _recycled(self._obs_pool, (self.num_envs, self.observation_size), np.float32)
        if self._obs is None:
            self._obs = np.zeros((self.num_envs, self.observation_size), np.float32)
        return self._obs

    @property
    def observation_space(self) -> spaces.Box:
        """Box (N, D): built when asked for (its bounds are two more (N, D) arrays)."""
        return spaces.Box(0.0, 3.0, (self.num_envs, self.observation_size), np.float32)

    @property
    def action_space(self) -> spaces.MultiDiscrete:
        return spaces.MultiDiscrete(np.full(self.num_envs, NUM_ACTIONS))

    def _info(self) -> dict[str, Any]:
        if self.copy:
            mask = _recycled(self._mask_pool, self._mask.shape, bool)
            mask[...] = self._mask
        else:
            mask = self._mask
        return {"action_mask": mask, "seat": self.engine.to_act.copy()}

    # ------------------------------------------------------------------ stepping
    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game: ``(obs, rewards, terminated, truncated, info)``."""
        obs = self._out_obs()
        rewards, terminated, final = self._advance(self._all, actions, obs)
        info = self._info()
        info.update(final)
        return obs, rewards, terminated, np.zeros(self.num_envs, bool), info

    def step_games(
        self, games: np.ndarray, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in games ``games`` only (the others wait).

        Returns ``(obs, mask, seat, rewards, terminated, final)`` for those games, rows in
        the order of ``games``; ``final`` holds the ``final_*`` entries of ``info``
        (``final_index`` as positions in ``games``).
        """
        g = self._check_games(games)
        obs = np.empty((len(g), self.observation_size), np.float32)
        rewards, terminated, final = self._advance(g, actions, obs)
        return obs, self._mask[g], self.engine.to_act[g], rewards, terminated, final

    def _check_games(self, games: Any) -> np.ndarray:
        """Distinct game indices 0..N-1 as an int64 array; ``ValueError`` otherwise (a
        repeated game would be stepped twice in one lockstep and corrupt its state)."""
        g = np.asarray(games)
        if g.ndim != 1 or g.dtype.kind not in "iu":
            raise ValueError(f"games must be a 1-D array of integer game indices, not {g.dtype} of shape {g.shape}")
        g = g.astype(np.int64, copy=False)
        if len(g) and (g.min() < 0 or g.max() >= self.num_envs):
            raise ValueError(f"games must be indices 0..{self.num_envs - 1}, not {int(g.min())}..{int(g.max())}")
        if len(np.unique(g)) != len(g):
            raise ValueError("games must be distinct: each game takes one decision per step")
        return g

    def _check_actions(self, g: np.ndarray, actions: Any) -> np.ndarray:
        """The actions as int64, or :class:`IllegalMoveError` (R5) naming the first bad
        move, its seat and game: only integer arrays are actions (no floats, bools,
        strings or objects, which would be truncated or parsed)."""
        arr = np.asarray(actions)
        seat0 = int(self.engine.to_act[g[0]]) if len(g) else None
        if arr.shape != (len(g),):
            raise IllegalMoveError(
                f"actions of shape {arr.shape}", seat0, f"expected one action per game, shape ({len(g)},)", "R5"
            )
        if arr.dtype.kind not in "iu":
            shown = repr(arr[0].item()) if len(arr) and arr.dtype.kind != "O" else repr(arr[:1].tolist())
            raise IllegalMoveError(
                shown,
                seat0,
                f"not action ids (an array of {arr.dtype}; actions are integers 0..84), game {int(g[0])}",
                "R5",
            )
        return arr.astype(np.int64, copy=False)

    def _illegal_reason(self, game: int, action: int) -> tuple[str, str]:
        """Why ``action`` is not legal in ``game``, and the rule (R5 names both)."""
        e = self.engine
        phase = int(e.phase[game])
        if not 0 <= action < NUM_ACTIONS:
            return "no such action", "R5"
        if action < NUM_CARDS:
            if phase != PLAY:
                return "no card is due", "R5"
            if not e.hands[game, e.to_act[game], action]:
                return "card not in hand", "R5"
            return "must follow the suit led", "R0.4"
        if action < PASS_ACTION:
            return ("no trump choice is due", "R5") if phase != TRUMP else ("not a legal trump choice", "R5")
        if phase != BID:
            return "no bid is due", "R4.2"
        return f"a bid must name a number above {int(e.high_bid[game])}", "R4.2"

    def _advance(self, g: np.ndarray, actions: Any, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        e = self.engine
        full = g is self._all
        actions = self._check_actions(g, actions)
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        if ok.all():
            ok = self._mask[g, actions] if not full else self._mask[self._all, actions]
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            a = int(actions[j])
            text = action_text(a) if 0 <= a < NUM_ACTIONS else str(a)
            reason, rule = self._illegal_reason(int(g[j]), a)
            raise IllegalMoveError(text, int(e.to_act[g[j]]), f"{reason} (game {int(g[j])})", rule)
        actor = e.to_act[g]
        e.step(actions, None if full else g)
        self._resolve_chance(g)
        ph = e.phase if full else e.phase[g]
        ended = np.flatnonzero(ph == DONE)
        n = self.num_players
        rewards = np.zeros((len(g), n), np.float32)
        terminated = np.zeros(len(g), bool)
        terminated[ended] = True
        if not len(ended):
            final = self._no_final
        else:
            gd = g[ended]
            outcome = self._outcome(gd)
            final = {"final_index": ended, "final_outcome": outcome, "final_seat": actor[ended]}
            rewards[ended] = self._side_rewards(gd, outcome)[:, None] * self._side_sign
            fo = self.final_obs
            if fo == "all":
                rows = np.repeat(gd, n)
                seats = np.tile(np.arange(n), len(gd))
                final["final_obs"] = self.observer.observe(rows, seats).reshape(len(gd), n, self.observation_size)
            elif fo == "actor":
                final["final_obs"] = self.observer.observe(gd, final["final_seat"])
            elif fo is not False:
                final["final_obs"] = self.observer.observe(gd, np.full(len(gd), int(fo)))
            self._deal(gd)
        self._observe(g, obs, full)
        return rewards, terminated, final

    def _observe(self, g: np.ndarray, obs: np.ndarray, full: bool) -> None:
        """Observation and legal mask of the seat to act in games ``g``."""
        e = self.engine
        rows = e.hands.reshape(-1, e.hands.shape[-1])
        if not full:
            seats = e.to_act[g]
            held = rows[g * e.n + np.maximum(seats, 0)]
            self.observer.observe(g, seats, out=obs, held=held)
            self._mask[g] = e.legal_mask(g, held=held)
            return
        seats = e.to_act.copy()
        held = rows[self._row_base + np.maximum(seats, 0)]
        e.legal_mask(slice(None), out=self._mask, held=held)
        self.observer.observe(slice(None), seats, out=obs, held=held)

    @property
    def final_obs(self) -> bool | str | int:
        """Which final observations ``info`` holds: "actor", "all", a seat, or False."""
        return self._final_obs

    @final_obs.setter
    def final_obs(self, value: bool | str | int) -> None:
        if value is True:
            value = "actor"
        if not (value is False or value in ("actor", "all") or isinstance(value, (int, np.integer))):
            raise ValueError(f"final_obs must be 'actor', 'all', a seat or False, not {value!r}")
        if not isinstance(value, (str, bool)) and not 0 <= int(value) < self.num_players:
            raise ValueError(f"final_obs seat must be 0..{self.num_players - 1}, not {value}")
        self._final_obs = value
        self._no_final = self._empty_final()

    def _empty_final(self) -> dict[str, Any]:
        """The ``final_*`` entries when no game ended (empty arrays, shared)."""
        none = np.zeros(0, np.int64)
        final: dict[str, Any] = {"final_index": none, "final_outcome": self._outcome(none), "final_seat": none}
        if self.final_obs == "all":
            final["final_obs"] = np.zeros((0, self.num_players, self.observation_size), np.float32)
        elif self.final_obs is not False:
            final["final_obs"] = np.zeros((0, self.observation_size), np.float32)
        for v in (*final.values(), *final["final_outcome"].values()):
            if isinstance(v, np.ndarray):
                v.flags.writeable = False
        return final

    def _outcome(self, g: np.ndarray) -> dict[str, np.ndarray]:
        e = self.engine
        out = e.outcome(g)
        out.update(
            tricks=e.tricks[g].copy(),
            tens=e.tens[g].copy(),
            trump=e.trump_suit[g].copy(),
            trump_maker=e.trump_maker[g].copy(),
            dealer=e.dealer[g].copy(),
            contract_seat=e.contract_seat[g].copy(),
            contract_level=e.contract_level[g].copy(),
        )
        return out

    def _side_rewards(self, g: np.ndarray, outcome: dict[str, np.ndarray]) -> np.ndarray:
        """Side 0's reward per game (``raw_env._pay_hand_rewards`` with episode="hand")."""
        return side0_reward(
            self.reward_kind,
            self.rules,
            outcome["winner"],
            outcome["tens"],
            outcome["tricks"],
            outcome["kot"],
            outcome["score"],
        )

    # ------------------------------------------------------------------ misc
    @property
    def action_mask(self) -> np.ndarray:
        """The current (N, 85) legal mask (the env's own buffer: do not modify)."""
        return self._mask

    @property
    def seat(self) -> np.ndarray:
        return self.engine.to_act

    def close(self) -> None:
        pass


def vector_env(rules: str | Rules = "dehla", num_envs: int = 1, seed: int | None = None, **options: Any) -> VectorEnv:
    """``num_envs`` games of ``rules`` in one :class:`VectorEnv` (see its module docstring).

    Keywords: ``reward`` (``"win"``, ``"tens"``, ``"tricks"``, ``"points"``),
    ``final_obs`` (``"actor"``, ``"all"``, a seat, False), ``copy`` (default True),
    ``first_dealer`` (default: drawn per episode), ``episode`` (``"hand"`` only);
    anything else is a rule option (``trump="chosen"``, ``players=6`` ...).
    """
    return VectorEnv(rules, num_envs=num_envs, seed=seed, **options)
