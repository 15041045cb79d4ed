"""A turn-based vector environment: ``N`` games of one ruleset, one decision per game per step.

``dehla_env.vector.vector_env(rules="dehla", num_envs=N, seed=S, **options)``

====================  ==================================================================
Rulesets              ``dehla`` (both trump modes), ``dehla-direct`` (every trump,
                      scoring and match option, four or six players), ``court-piece``,
                      ``coat-pees``: the options of :func:`dehla_env.make_rules`
Episode               one hand (round) per episode (``episode="hand"``, the reference
                      env's default); each episode is a fresh match: a uniformly random
                      deal and first dealer (R1.10, as ``MatchState.new``)
Action                ``actions``: (N,) ints in the flat layout of
                      :mod:`dehla_env.actions` (cards 0..51, trump suits 52..55, pass 56,
                      bids 57..84), one per game, for the seat to act in that game
Observation           ``obs``: (N, D) float32, the flat observation of
                      :mod:`dehla_env.encoding` for the seat to act next (D = 829 with
                      four players, 1,001 with six), identical to the reference env's
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
* ``"final_obs"``: (K, seats, D) every seat's final observation (the reference env's
  observation once the hand is over, match values after that one hand included), unless
  the env was made with ``final_obs=False``;
* ``"final_outcome"``: dict of (K,) / (K, 2) arrays: ``winner`` (side, -1: none),
  ``kot``, ``all_tens``, ``score`` (R4.4), ``tricks``, ``tens``, ``trump``,
  ``trump_maker``, ``dealer``, ``contract_seat``, ``contract_level``.

Arrays returned by :meth:`VectorEnv.step` are new each step (``copy=True``, the
default); with ``copy=False`` the observation and mask buffers are reused and
overwritten by the next step (faster; copy what you keep).

An action that is not legal raises :class:`dehla_env.IllegalMoveError` naming the game,
the seat and the move, and changes nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..actions import NUM_ACTIONS, action_text
from ..env import REWARD_KINDS
from ..errors import IllegalMoveError
from ..rules import Rules, make_rules
from .engine import DONE, DRAW, PLAY, BatchEngine
from .observe import BatchObserver


class VectorEnv:
    """``num_envs`` games in lockstep; see the module docstring."""

    metadata: dict[str, Any] = {"name": "dehla_vector_v0", "autoreset_mode": "same-step"}
    CHUNK = 1024  # games per observation chunk

    def __init__(
        self,
        rules: str | Rules = "dehla",
        num_envs: int = 1,
        seed: int | None = None,
        reward: str = "win",
        episode: str = "hand",
        final_obs: bool = True,
        copy: bool = True,
        **options: Any,
    ) -> None:
        if isinstance(rules, Rules):
            if options:
                raise ValueError("pass either a Rules object or a preset name with options, not both")
            self.rules = rules
        else:
            self.rules = make_rules(rules, options)
        if episode == "match":
            raise NotImplementedError("the vector env plays single hands (episode='hand'); use dehla_env.env for matches")
        if episode != "hand":
            raise ValueError(f"episode must be 'hand', not {episode!r}")
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward must be one of {REWARD_KINDS}, not {reward!r}")
        if reward == "tens" and not self.rules.tens_scoring:
            raise ValueError(f"reward 'tens' needs a tens-scoring ruleset, not {self.rules}")
        if reward == "points" and self.rules.name not in ("court-piece", "coat-pees"):
            raise ValueError("reward 'points' is for court-piece and coat-pees")
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        self.num_envs = N = int(num_envs)
        self.reward_kind = reward
        self.final_obs = final_obs
        self.copy = copy
        self.engine = BatchEngine(self.rules, N)
        self.observer = BatchObserver(self.engine)
        self.num_players = n = self.rules.players
        self.num_actions = NUM_ACTIONS
        self.observation_size = D = self.observer.size
        self.single_observation_space = spaces.Box(0.0, 3.0, (D,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = spaces.Box(0.0, 3.0, (N, D), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(N, NUM_ACTIONS))
        self._rng = np.random.default_rng(seed)
        self._all = self.engine.all
        self._obs = np.zeros((N, D), np.float32)
        self._mask = np.zeros((N, NUM_ACTIONS), bool)
        self._side_sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0).astype(np.float32)
        self._started = False

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new hand in every game; returns ``(obs, info)``."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._deal(self._all)
        self._started = True
        obs = self._out_obs()
        self._observe(self._all, obs, True)
        return obs, self._info()

    def _deal(self, g: np.ndarray) -> None:
        decks, dealers = self.engine.sample_deals(self._rng, len(g))
        self.engine.deal(g, decks, dealers)
        self._resolve_chance(g)

    def _resolve_chance(self, g: np.ndarray) -> None:
        e = self.engine
        if not e.first_void or not e.staged:
            return
        dr = g[e.phase[g] == DRAW]
        if len(dr):
            e.draw(dr, e.sample_draws(self._rng, dr))

    def _out_obs(self) -> np.ndarray:
        if self.copy:
            return np.empty((self.num_envs, self.observation_size), np.float32)
        return self._obs

    def _info(self) -> dict[str, Any]:
        mask = self._mask.copy() if self.copy else self._mask
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
        g = np.asarray(games, dtype=np.int64)
        obs = np.empty((len(g), self.observation_size), np.float32)
        rewards, terminated, final = self._advance(g, actions, obs)
        return obs, self._mask[g], self.engine.to_act[g], rewards, terminated, final

    def _advance(
        self, g: np.ndarray, actions: Any, obs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        e = self.engine
        full = g is self._all
        actions = np.asarray(actions)
        if actions.shape != (len(g),):
            raise ValueError(f"expected {len(g)} actions, got shape {actions.shape}")
        actions = actions.astype(np.int64, copy=False)
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        if ok.all():
            ok = self._mask[g, actions] if not full else self._mask[self._all, actions]
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            a = int(actions[j])
            text = action_text(a) if 0 <= a < NUM_ACTIONS else str(a)
            raise IllegalMoveError(text, int(e.to_act[g[j]]), f"not a legal action in game {int(g[j])}")
        e.step(actions, None if full else g)
        self._resolve_chance(g)
        ph = e.phase if full else e.phase[g]
        ended = np.flatnonzero(ph == DONE)
        n = self.num_players
        rewards = np.zeros((len(g), n), np.float32)
        terminated = np.zeros(len(g), bool)
        final: dict[str, Any] = {}
        if len(ended):
            gd = g[ended]
            terminated[ended] = True
            outcome = self._outcome(gd)
            rewards[ended] = self._side_rewards(gd, outcome)[:, None] * self._side_sign
            final["final_index"] = ended
            final["final_outcome"] = outcome
            if self.final_obs:
                rows = np.repeat(gd, n)
                seats = np.tile(np.arange(n), len(gd))
                final["final_obs"] = self.observer.observe(rows, seats).reshape(len(gd), n, -1)
            self._deal(gd)
        else:
            final["final_index"] = ended
        self._observe(g, obs, full)
        return rewards, terminated, final

    def _observe(self, g: np.ndarray, obs: np.ndarray, full: bool) -> None:
        """Observation and legal mask of the seat to act, games ``g``, in chunks of
        ``CHUNK`` games (the chunk's rows stay in cache while they are written)."""
        e = self.engine
        rows = e.hands2.reshape(-1, e.hands2.shape[-1])
        k = len(g)
        for a in range(0, k, self.CHUNK):
            b = min(a + self.CHUNK, k)
            gc = g[a:b]
            seats = e.to_act[gc]
            held = rows[gc * (2 * e.n) + np.maximum(seats, 0)]
            self.observer.observe(gc, seats, out=obs[a:b], held=held)
            if full:
                e.legal_mask(gc, out=self._mask[a:b], held=held)
            else:
                self._mask[gc] = e.legal_mask(gc, held=held)

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
        rules = self.rules
        kind = self.reward_kind
        w = outcome["winner"]
        if kind == "win":
            side0 = np.where(w == 0, 1.0, np.where(w == 1, -1.0, 0.0))
        elif kind == "tens":
            t = outcome["tens"]
            side0 = (t[:, 0] - t[:, 1]) / rules.num_tens
        elif kind == "tricks":
            t = outcome["tricks"]
            side0 = (t[:, 0] - t[:, 1]) / rules.num_tricks
        elif rules.name == "court-piece":
            gained = 1 + (outcome["kot"] >= 0)
            side0 = np.where(w == 0, gained, -gained) / 2.0
        else:
            sc = outcome["score"]
            side0 = (sc[:, 0] - sc[:, 1]) / 26.0
        return side0

    # ------------------------------------------------------------------ misc
    @property
    def action_mask(self) -> np.ndarray:
        """The current (N, 85) legal mask (the env's own buffer: do not modify)."""
        return self._mask

    @property
    def seat(self) -> np.ndarray:
        return self.engine.to_act

    def playing(self) -> np.ndarray:
        """(N,) bool: the games waiting for a card (not a trump choice or bid)."""
        return self.engine.phase == PLAY

    def close(self) -> None:
        pass


def vector_env(rules: str | Rules = "dehla", num_envs: int = 1, seed: int | None = None, **options: Any) -> VectorEnv:
    """``num_envs`` games of ``rules`` in one :class:`VectorEnv` (see its module docstring).

    Keywords: ``reward`` (``"win"``, ``"tens"``, ``"tricks"``, ``"points"``),
    ``final_obs`` (default True), ``copy`` (default True), ``episode`` (``"hand"`` only);
    anything else is a rule option (``trump="chosen"``, ``players=6`` ...).
    """
    return VectorEnv(rules, num_envs=num_envs, seed=seed, **options)
