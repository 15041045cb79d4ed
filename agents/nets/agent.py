"""The ``policy:PATH`` agent: a trained network as a bot, played in numpy or in torch.

A play file (``.safetensors``, :mod:`agents.nets.play`) plays in numpy, so a core
install plays every shipped policy; a torch checkpoint (``.pt``) needs torch. Where
both would do, numpy plays: one decision (one position) takes less time in numpy than
in torch (``python benchmarks/policy_speed.py`` prints both), and the two give the
same logits to within 1e-4 (``tests/test_play_format.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from agents.base import Agent
from agents.nets.play import PLAY_SUFFIX, read_play_file
from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import relabel_tables
from dehla_env.encoding import encode_view, observation_size
from dehla_env.rules import Rules
from dehla_env.view import PlayerView


class Network(Protocol):
    """What play asks of a policy network (numpy's or torch's)."""

    obs_size: int

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """(B, 85) logits of observations (B, D) float32."""
        ...


def read_network(path: Path) -> tuple[Network, Rules]:
    """The network of a policy file and its rules: a play file in numpy, any other file
    as a torch checkpoint (``ValueError`` saying so where torch is not installed)."""
    if path.suffix == PLAY_SUFFIX:
        return read_play_file(path)
    try:
        from agents.nets.policy import load_policy
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        raise ValueError(
            f"{path} is a torch checkpoint, which needs torch (pip install 'dehla[train]'); without torch, "
            f"play its export: python -m agents.nets.export {path} --out {path.with_suffix(PLAY_SUFFIX)}"
        ) from None
    return load_policy(path)


_CACHE: dict[str, tuple[tuple[int, int, int], Network, Rules]] = {}


def cached_network(path: str | Path) -> tuple[Network, Rules]:
    """Load once per process and file version (the arena makes fresh agents for every
    deal): a file rewritten since, as training's evaluation rewrites its policy file, is
    loaded again."""
    key = str(Path(path).resolve())
    try:
        st = os.stat(key)
        version = (st.st_ino, st.st_mtime_ns, st.st_size)  # an atomic rewrite is a new inode
    except OSError:
        version = (-1, -1, -1)  # the reader reports the missing file
    hit = _CACHE.get(key)
    if hit is None or hit[0] != version:
        net, rules = read_network(Path(key))
        hit = _CACHE[key] = (version, net, rules)
    return hit[1], hit[2]


class PolicyAgent(Agent):
    """A trained policy as an agent: ``policy:PATH`` (greedy by default;
    ``policy:path=PATH,sample=1`` samples from its distribution; ``relabel=1`` averages
    it over the suit relabellings, :meth:`_logits`)."""

    name = "policy"

    def __init__(
        self,
        path: str | Path | None,
        rules: Rules,
        seed: int | None = None,
        sample: bool = False,
        net: Network | None = None,
        relabel: bool = False,
    ) -> None:
        """Load ``path`` (cached per process), or wrap an in-memory ``net`` (numpy's or a
        torch :class:`~agents.nets.policy.PolicyNet`)."""
        super().__init__(seed)
        self.net: Network
        if net is not None:
            self.net, trained_rules = net, rules
        elif path is not None:
            self.net, trained_rules = cached_network(path)
        else:
            raise ValueError("PolicyAgent needs a policy file or a network")
        if trained_rules != rules:
            raise ValueError(f"{path} was trained for {trained_rules}; it does not play {rules}")
        if self.net.obs_size != observation_size(rules):
            raise ValueError(f"{path} expects observations of {self.net.obs_size}, not {observation_size(rules)}")
        self.sample, self.relabel, self.path, self.players = sample, relabel, str(path), rules.players

    def _logits(self, view: PlayerView) -> np.ndarray:
        """The network's logits for ``view``, -inf on the illegal actions.

        With ``relabel``: the mean of its log-probabilities over the 24 suit
        relabellings of the game (each relabelled game is the same game with the suits
        renamed: no rule ranks the suits, R0.4 and R4.2's "suits have no order"), each
        mapped back to this game's actions. A network trained without that symmetry does not have it (its
        greedy move changes under relabelling at many decisions), and the average plays
        better than any one relabelling: an ensemble at the cost of one 24-row forward
        pass (README, Results)."""
        obs = encode_view(view)
        illegal = np.ones(NUM_ACTIONS, dtype=bool)
        illegal[list(view.legal_actions)] = False
        if not self.relabel:
            return np.where(illegal, -np.inf, self.net.logits(obs[None])[0])
        tables = relabel_tables(self.players)  # cached per player count
        # row p, column a: the logit of action a relabelled by p
        logits = np.take_along_axis(self.net.logits(obs[tables.obs]), tables.action, 1)
        masked = np.where(illegal, -np.inf, logits.astype(np.float64))
        top = masked.max(1, keepdims=True)
        logp = masked - top - np.log(np.exp(masked - top).sum(1, keepdims=True))
        return np.where(illegal, -np.inf, logp.mean(0))

    def probabilities(self, view: PlayerView) -> np.ndarray:
        """The policy's move distribution at ``view`` (``NUM_ACTIONS`` float64, 0 on the
        illegal actions): what a search takes as its prior (``search:prior=...``)."""
        logits = self._logits(view).astype(np.float64)
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if self.sample:
            return int(self.rng.choice(NUM_ACTIONS, p=self.probabilities(view)))
        return int(self._logits(view).argmax())


class GreedyBatch:
    """A batched policy (:mod:`agents.bots.batched`): ``net``'s greedy legal move for
    every row, what a batched search's network playouts play."""

    deterministic = True  # its move where one action is legal is that action

    def __init__(self, net: Network) -> None:
        self.net = net

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.where(mask, self.net.logits(obs), -np.inf).argmax(1)
