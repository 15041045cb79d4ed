"""A turn-based vector environment: ``N`` games of one ruleset, one decision per game per step.

``dehla_env.vector_env(rules="dehla", num_envs=N, seed=S, **options)`` is a
:class:`gymnasium.vector.VectorEnv`, so gymnasium's vector wrappers
(``RecordEpisodeStatistics``, ``NormalizeReward``, ``FlattenObservation`` ...) and vector
training loops take it as it is. ``autoreset_mode=`` is gymnasium's default
``AutoresetMode.NEXT_STEP`` (the step after a hand ends deals a new one in that game,
its action ignored; every gymnasium wrapper accepts it) or ``SAME_STEP`` (a new hand at
once, the final observation in ``info``: no wasted step, for trainers).

====================  ==================================================================
Rulesets              every preset of :data:`dehla_env.rules.PRESET_TABLE`, with every
                      option of :func:`dehla_env.make_rules`
Episode               one hand (round) per episode; each episode is a fresh match: a
                      uniformly random deal and first dealer (R1.10, as
                      ``MatchState.new``; fixed with ``first_dealer=``)
Action space          ``MultiDiscrete([85] * N)``: per game one action of the flat layout
                      of :mod:`dehla_env.actions`, for the seat to act in that game
Observation space     ``Box(0, 3, (N, D), float32)``: per game the flat observation of
                      :mod:`dehla_env.encoding` for the seat to act next (D = 826 with
                      four players, 1,116 with six), identical to ``raw_env``'s; with
                      ``obs_dtype="uint8"``, ``Box(0, 255, (N, D), uint8)`` *codes*, a
                      quarter of the memory traffic: :meth:`VectorEnv.float_view` (or
                      ``codes / env.observation_scale`` in torch) gives the float32
                      observation exactly, bit for bit
Reward                ``(N,)`` float32: the reward of the seat that acted in each game
                      (its side's, zero-sum; nonzero only on the step that ends a hand);
                      ``reward=`` ``"win"`` (default), ``"tens"``, ``"tricks"``,
                      ``"points"`` (:mod:`dehla_env.rewards`). Every seat's reward of the
                      step is ``info["rewards"]`` (N, seats)
Termination           ``terminated[i]``: game ``i``'s hand ended at this step;
                      ``truncated`` is all False. NEXT_STEP: ``obs[i]`` is then the final
                      observation and its mask empty; SAME_STEP: ``obs[i]`` is the new
                      hand's and the final one is in ``info``
``info``              ``"action_mask"`` (N, 85) bool and ``"seat"`` (N,), for the seat to
                      act next; ``"rewards"`` (N, seats); SAME_STEP, when some games
                      ended: ``"final_obs"`` (N,) object array (the final observation of the
                      ended games, None elsewhere) with ``"_final_obs"`` (N,) bool, and
                      ``"final_info"`` (dict of (N, ...) arrays: ``winner`` (side, -1:
                      none), ``kot``, ``all_tens``, ``score`` (R4.4), ``tricks``,
                      ``tens``, ``trump``, ``trump_maker``, ``dealer``, ``contract_seat``,
                      ``contract_level``, ``seat`` (who made the last move)) with
                      ``"_final_info"``
====================  ==================================================================

``final_obs=`` says whose final observation ``info["final_obs"]`` holds: ``"actor"`` (the
default: the seat whose move ended the hand), ``"all"`` (a (seats, D) array per game), a
seat number, or False (none). The final observation is the reference env's once the
hand is over (the match values after that hand included).

Chance steps (the deal, the R1.4 draw) are resolved inside :meth:`VectorEnv.step` from
the env's generator (``np_random``, seeded by ``reset(seed=...)``; the first deal of a
seed is ``raw_env``'s, see :func:`dehla_env.cards.shuffled_deck`).

:meth:`VectorEnv.step_games` steps only some games and returns compact per-game arrays
(per-seat rewards, the final entries of the ended games only): the form the learner
wrapper (:mod:`dehla_env.vector.wrappers`), search and training use.

Arrays returned are never overwritten while anything still refers to them (``copy=True``,
the default): an observation or mask buffer is recycled only once nothing but the env
holds it (CPython reference count; a numpy view or ``torch.from_numpy`` counts as a
holder). With ``copy=False`` the same buffers are always overwritten (copy what you keep).

The observations, the legal cards, the cards played and the deals are written a game at a
time by compiled kernels (:func:`~dehla_env.vector.observe.observe_rows`,
:func:`~dehla_env.vector.engine.legal_cards`, :func:`~dehla_env.vector.decisions.step_games`,
:func:`~dehla_env.vector.decisions.deal_games`, :func:`~dehla_env.vector.engine.draw_deals`):
plain Python that numba compiles as it is, on first use, and caches on disk, so a user
compiles once (``NUMBA_DISABLE_JIT=1`` runs them as Python, the same arrays bit for
bit, for debugging).

An action that is not an integer, or not legal, raises :class:`dehla_env.IllegalMoveError`
naming the game, the seat, the move and the rule, and changes nothing (R5).

Version history
    v1: a real ``gymnasium.vector.VectorEnv``: (N,) rewards of the actor (every seat's in
    ``info["rewards"]``), gymnasium's ``final_obs``/``final_info`` entries,
    ``obs_dtype="uint8"`` codes. v0: (N, seats) rewards, compact ``final_*`` entries.
"""

from __future__ import annotations

import sys
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..actions import NUM_ACTIONS, PASS_ACTION, action_text
from ..cards import NUM_CARDS
from ..episode import EPISODES, ResetNeededError
from ..errors import IllegalMoveError
from ..rewards import reward_kind, side0_reward
from ..rules import Rules, rules_from
from ..seats import side_of
from .engine import BID, DONE, DRAW, PLAY, TRUMP, BatchEngine
from .observe import BatchObserver, float_observations

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


def _autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """An :class:`AutoresetMode`, its value (``"NextStep"``) or name (``"next_step"``)."""
    if isinstance(mode, AutoresetMode):
        return mode
    for m in AutoresetMode:
        if mode in (m.value, m.name, m.name.lower()):
            return m
    raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, not {mode!r}")


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games in lockstep; see the module docstring."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (gymnasium's class attribute)
        "name": "dehla_vector_v1",
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

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
        obs_dtype: str | type = "float32",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **options: Any,
    ) -> None:
        self.rules = rules_from(rules, options)
        if episode != EPISODES[0]:
            raise ValueError(
                f"the vector env plays single hands (episode='hand'), not {episode!r}; use dehla_env.env for matches"
            )
        self.reward_kind = reward_kind(reward, self.rules)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        self.num_envs = N = int(num_envs)
        if first_dealer is not None and not 0 <= first_dealer < self.rules.players:
            raise ValueError(f"first_dealer must be a seat 0..{self.rules.players - 1}, not {first_dealer!r}")
        dtype = np.dtype(obs_dtype)
        if dtype not in (np.float32, np.uint8):
            raise ValueError(f"obs_dtype must be float32 or uint8, not {obs_dtype!r}")
        self.obs_dtype = dtype
        mode = _autoreset_mode(autoreset_mode)
        if mode is AutoresetMode.DISABLED:
            raise ValueError("the vector env deals a new hand itself: autoreset_mode NEXT_STEP or SAME_STEP")
        if mode is AutoresetMode.NEXT_STEP and final_obs == "all":
            raise ValueError("final_obs='all' needs autoreset_mode SAME_STEP (NEXT_STEP shows one final observation)")
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self._pending_reset = np.zeros(N, bool)
        self.first_dealer = first_dealer
        self._final_obs: bool | str | int = "actor"
        self.copy = copy
        self.engine = BatchEngine(self.rules, N)
        self.observer = BatchObserver(self.engine, codes=dtype == np.uint8)
        self.num_players = n = self.rules.players
        self.num_actions = NUM_ACTIONS
        self.observation_size = D = self.observer.size
        if dtype == np.uint8:
            self.single_observation_space = spaces.Box(0, 255, (D,), np.uint8)
        else:
            self.single_observation_space = spaces.Box(0.0, 3.0, (D,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.action_space = spaces.MultiDiscrete(np.full(N, NUM_ACTIONS))
        self._observation_space: spaces.Box | None = None
        self.render_mode = None
        self._np_random, self._np_random_seed = seeding.np_random(seed)
        self._all = self.engine.all
        self._obs: np.ndarray | None = None  # the reused buffer (copy=False)
        self._obs_pool: list[np.ndarray] = []  # returned buffers, recycled once released (copy=True)
        self._mask_pool: list[np.ndarray] = []
        self._mask = np.zeros((N, NUM_ACTIONS), bool)
        self._side_sign = np.where(side_of(np.arange(n)) == 0, 1.0, -1.0).astype(np.float32)
        self._started = False
        self.final_obs = final_obs

    @property
    def observation_space(self) -> spaces.Box:  # type: ignore[override]
        """Box (N, D), built when first asked for (its bounds are two more (N, D) arrays)."""
        if self._observation_space is None:
            self._observation_space = batch_space(self.single_observation_space, self.num_envs)  # type: ignore[assignment]
        assert self._observation_space is not None
        return self._observation_space

    @property
    def observation_scale(self) -> np.ndarray:
        """(D,) float32: ``codes / observation_scale`` is the float32 observation, bit for
        bit (float32 division is exact to the last bit, as the encoder's fractions are)."""
        return self.observer.scale

    def float_view(self, obs: np.ndarray) -> np.ndarray:
        """The float32 observation of ``obs`` (codes with ``obs_dtype="uint8"``; floats pass)."""
        if obs.dtype == np.float32:
            return obs
        return float_observations(obs, self.observer.scale)

    # ------------------------------------------------------------------ episode
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new hand in every game; returns ``(obs, info)``.

        ``options={"decks": (N, deck) card ids, "dealers": (N,) seats}`` deals these
        hands instead of random ones (fixed deals for evaluation and tests); the hands
        dealt by later automatic resets are random again.
        """
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
                raise ValueError(f"seed is one integer for the whole batch, not {seed!r}")
            self._np_random, self._np_random_seed = seeding.np_random(int(seed))
        fixed = self._fixed_deals(options)
        if fixed is not None:
            self.engine.deal(self._all, *fixed)
            self._resolve_chance(self._all)
        else:
            self._deal(self._all)
        self._started = True
        self._pending_reset[:] = False
        obs = self._out_obs()
        self._observe(self._all, obs, True)
        info = self._info()
        info["rewards"] = np.zeros((self.num_envs, self.num_players), np.float32)
        return obs, info

    #: the keys of ``reset(options=...)``: both or neither
    RESET_OPTIONS = ("decks", "dealers")

    def _fixed_deals(self, options: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """The decks and dealers of ``reset(options={"decks": ..., "dealers": ...})`` as
        int64 arrays, or None without them; ``ValueError`` naming what is wrong: an
        options object that is not a dict, an unknown key, one of the two without the
        other, a shape, a dtype (integers only: a float or bool array would be cut to
        cards silently) or a deck that is not the pack(s)."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise ValueError(f"reset options are a dict (keys decks and dealers), not {type(options).__name__}")
        unknown = sorted(map(str, set(options) - set(self.RESET_OPTIONS)))
        if unknown:
            raise ValueError(f"unknown reset option(s) {', '.join(unknown)}; known: decks and dealers (together)")
        if not options:
            return None
        missing = [k for k in self.RESET_OPTIONS if k not in options]
        if missing:
            given = next(k for k in self.RESET_OPTIONS if k in options)
            raise ValueError(f"reset option {given} needs {missing[0]} too: a fixed deal is its decks and dealers")
        N, size = self.num_envs, self.rules.deck_size
        arrays = []
        for key, shape in (("decks", (N, size)), ("dealers", (N,))):
            try:
                arr = np.asarray(options[key])
            except (ValueError, TypeError) as e:  # ragged nested lists
                raise ValueError(f"reset option {key} must be an integer array of shape {shape}: {e}") from None
            if arr.dtype.kind not in "iu":
                raise ValueError(f"reset option {key} must be an integer array of shape {shape}, not {arr.dtype}")
            if arr.shape != shape:
                raise ValueError(f"reset option {key} must have shape {shape}, not {arr.shape}")
            arrays.append(arr.astype(np.int64))
        decks, dealers = arrays
        if (decks < 0).any() or (decks >= NUM_CARDS).any():
            raise ValueError(f"decks hold card ids 0..{NUM_CARDS - 1}")
        counts = np.zeros((N, NUM_CARDS), np.int64)
        np.add.at(counts, (np.repeat(np.arange(N), size), decks.reshape(-1)), 1)
        if (counts != self.rules.packs).any():
            raise ValueError("every deck must be a permutation of the pack(s) (R0.3)")
        if (dealers < 0).any() or (dealers >= self.num_players).any():
            raise ValueError(f"dealers must be seats 0..{self.num_players - 1}")
        return decks, dealers

    def _deal(self, g: np.ndarray) -> None:
        decks, dealers = self.engine.sample_deals(self.np_random, len(g))
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
            e.draw(dr, e.sample_draws(self.np_random, dr))

    def _out_obs(self) -> np.ndarray:
        if self.copy:
            return _recycled(self._obs_pool, (self.num_envs, self.observation_size), self.obs_dtype)
        if self._obs is None:
            self._obs = np.zeros((self.num_envs, self.observation_size), self.obs_dtype)
        return self._obs

    def _info(self) -> dict[str, Any]:
        if self.copy:
            mask = _recycled(self._mask_pool, self._mask.shape, bool)
            mask[...] = self._mask
        else:
            mask = self._mask
        return {"action_mask": mask, "seat": self.engine.to_act.copy()}

    # ------------------------------------------------------------------ stepping
    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game: ``(obs, rewards, terminated, truncated, info)``
        (the layout of the module docstring)."""
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            return self._step_next(actions)
        obs = self._out_obs()
        actor = self.engine.to_act.copy()
        seat_rewards, terminated, final = self._advance(self._all, actions, obs)
        info = self._info()
        info["rewards"] = seat_rewards
        if len(final["final_index"]):
            self._gymnasium_final(info, final)
        rewards = seat_rewards[self._all, actor]
        return obs, rewards, terminated, np.zeros(self.num_envs, bool), info

    def _step_next(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """NEXT_STEP autoreset: the games that ended at the last step are dealt anew now
        (their action is ignored, their reward 0); the others take their action, and
        those that end show their final observation and a mask of no legal action."""
        N = self.num_envs
        obs = self._out_obs()
        arr = np.asarray(actions)
        redo = self._pending_reset
        seat_rewards = np.zeros((N, self.num_players), np.float32)
        terminated = np.zeros(N, bool)
        actor = self.engine.to_act.copy()
        final = self._no_final
        if redo.any():
            play = np.flatnonzero(~redo)
            if arr.shape != (N,):
                self._check_actions(self._all, arr)  # the one message for a malformed batch
            sub = np.empty((len(play), self.observation_size), self.obs_dtype)
            if len(play):
                r, t, final = self._advance(play, arr[play], sub, redeal=False)
                seat_rewards[play], terminated[play], obs[play] = r, t, sub
                final = {**final, "final_index": play[final["final_index"]]}
            again = np.flatnonzero(redo)
            self._deal(again)
            sub = np.empty((len(again), self.observation_size), self.obs_dtype)
            self._observe(again, sub, False)
            obs[again] = sub
        else:
            seat_rewards, terminated, final = self._advance(self._all, arr, obs, redeal=False)
        self._pending_reset = terminated.copy()
        if terminated.any():
            self._mask[terminated] = False
        info = self._info()
        info["rewards"] = seat_rewards
        rewards = seat_rewards[self._all, actor]
        rewards[redo] = 0.0
        return obs, rewards, terminated, np.zeros(N, bool), info

    def _gymnasium_final(self, info: dict[str, Any], final: dict[str, Any]) -> None:
        """The compact final entries of :meth:`step_games` in gymnasium's SAME_STEP form."""
        N = self.num_envs
        ended = final["final_index"]
        mask = np.zeros(N, bool)
        mask[ended] = True
        if "final_obs" in final:
            per_env = np.full(N, None, dtype=object)
            for j, g in enumerate(ended.tolist()):
                per_env[g] = final["final_obs"][j]
            info["final_obs"], info["_final_obs"] = per_env, mask
        fields = {**final["final_outcome"], "seat": final["final_seat"]}
        final_info: dict[str, np.ndarray] = {}
        for key, value in fields.items():
            full = np.full((N, *value.shape[1:]), -1, value.dtype)
            full[ended] = value
            final_info[key] = full
        info["final_info"], info["_final_info"] = final_info, mask

    def step_games(
        self, games: np.ndarray, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in games ``games`` only (the others wait); an ended game is dealt
        anew at once, whatever ``autoreset_mode`` (use this or :meth:`step`, not both).

        Returns ``(obs, mask, seat, rewards, terminated, final)`` for those games, rows in
        the order of ``games``; ``final`` holds the ``final_*`` entries of ``info``
        (``final_index`` as positions in ``games``).
        """
        g = self._check_games(games)
        obs = np.empty((len(g), self.observation_size), self.obs_dtype)
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

    def _advance(
        self, g: np.ndarray, actions: Any, obs: np.ndarray, redeal: bool = True
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply ``actions`` in games ``g``; per-seat rewards, terminated, compact finals.
        ``redeal``: deal the ended games anew at once (SAME_STEP); else they stay over and
        their row of ``obs`` is the final observation (NEXT_STEP)."""
        if not self._started:
            raise ResetNeededError("step()")
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
            elif not redeal:
                final["final_obs"] = self.observer.observe(gd, final["final_seat"])
            if redeal:
                self._deal(gd)
        self._observe(g, obs, full)
        if not redeal and len(ended):
            obs[ended] = final["final_obs"]  # NEXT_STEP: the step that ends a hand shows its end
        return rewards, terminated, final

    def _observe(self, g: np.ndarray, obs: np.ndarray, full: bool) -> None:
        """Observation and legal mask of the seat to act in games ``g``."""
        e = self.engine
        if not full:
            self.observer.observe(g, e.to_act[g], out=obs)
            self._mask[g] = e.legal_mask(g)
            return
        e.legal_mask(slice(None), out=self._mask)
        self.observer.observe(slice(None), e.to_act.copy(), out=obs)

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
            final["final_obs"] = np.zeros((0, self.num_players, self.observation_size), self.obs_dtype)
        elif self.final_obs is not False:
            final["final_obs"] = np.zeros((0, self.observation_size), self.obs_dtype)
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
            winner=outcome["winner"],
            tens=outcome["tens"],
            tricks=outcome["tricks"],
            kot=outcome["kot"],
            score=outcome["score"],
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the games live in this process's arrays."""


def vector_env(rules: str | Rules = "dehla", num_envs: int = 1, seed: int | None = None, **options: Any) -> VectorEnv:
    """``num_envs`` games of ``rules`` in one :class:`VectorEnv` (see the module docstring):
    its keywords, and rule options (``trump="chosen"``, ``players=6`` ...)."""
    return VectorEnv(rules, num_envs=num_envs, seed=seed, **options)
