"""The play format of a policy and its network in numpy: a policy plays without torch.

A policy file for play (``NAME.safetensors``, what ``python -m agents.nets.export
--format play`` writes from a torch checkpoint) is a safetensors file: float32 weights
under the names of :class:`agents.nets.policy.PolicyNet`'s state dict, and in its
metadata the format (:data:`FORMAT`), the network's ``model_config`` and the ``rules``
it was trained for, as JSON. Reading one runs no code (safetensors holds no pickle) and
allocates nothing the file merely declares: the file is read once under a cap
(:data:`MAX_PLAY_FILE_BYTES`), and its header must name exactly the weights, shapes and
dtype that its ``model_config`` gives (:func:`weight_shapes`) before any weight is
built. :class:`NumpyPolicyNet` is the network's forward pass in numpy (the MLP or the
suit network, with the card features), held to the torch network by
``tests/test_play_format.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from agents.user_files import UserFileError, read_json, read_regular_file
from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import action_suit_groups, suit_groups
from dehla_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, suit_of
from dehla_env.encoding import Axis, Layout, layout_for
from dehla_env.rules import PACKS_FOR_PLAYERS, Rules, RulesError, make_rules

T = TypeVar("T")

#: what a play file's metadata names as its format
FORMAT = "dehla-policy/1"
PLAY_SUFFIX = ".safetensors"
#: the largest play file read at all (the shipped ones are under 1 MB)
MAX_PLAY_FILE_BYTES = 256 << 20

ARCHITECTURES = ("mlp", "suits")
"""``mlp``: layers over the whole input vector; ``suits``: :class:`agents.nets.suitnet.SuitNet`,
the same weights for every suit (equivariant under renaming the suits)."""

#: Extra inputs the card features (:mod:`agents.nets.features`) append to the observation.
NUM_CARD_FEATURES = 4 * NUM_CARDS + 2 * NUM_SUITS

#: What the card features append, in order, as layout parts (name, axes, shape).
FEATURE_PARTS: list[tuple[str, tuple[Axis, ...], tuple[int, ...]]] = [
    *[(name, (Axis.CARD,), (NUM_CARDS,)) for name in ("unseen", "higher_unseen", "master", "beats_trick")],
    *[(name, (Axis.SUIT,), (NUM_SUITS,)) for name in ("suit_hand", "suit_unseen")],
]


class CheckpointError(ValueError):
    """A file that is not a usable policy: missing, unreadable, refused because it could
    run code, or not of this project's format. The message names the file."""


def net_input_layout(num_players: int, card_features: bool) -> Layout:
    """The layout of a policy network's input: the observation's slices, then the card
    features when it has them (what :func:`dehla_env.augment.suit_groups` sorts by suit)."""
    parts = [(s.name, s.axes, s.shape) for s in layout_for(num_players).slices.values()]
    return Layout(num_players, parts + (FEATURE_PARTS if card_features else []))


def feature_slices(num_players: int) -> dict[str, slice]:
    """The observation slices the card features read; ``in_force``: the trump_state
    one-hot's column "known and in force" (none / in force / own closed secret / hidden)."""
    lay = layout_for(num_players)
    s = {n: slice(lay[n].offset, lay[n].stop) for n in ("hand", "played", "trick", "trick_winning", "trump_suit")}
    s["in_force"] = slice(lay["trump_state"].offset + 1, lay["trump_state"].offset + 2)
    return s


def higher_same_suit() -> np.ndarray:
    """``H[c, d] = 1`` when ``d`` is of ``c``'s suit and ranks above it."""
    cards = np.arange(NUM_CARDS)
    suits = suit_of(cards)
    return ((suits[:, None] == suits[None, :]) & (cards[None, :] > cards[:, None])).astype(np.float32)


def suit_matrix() -> np.ndarray:
    """``S[c, s] = 1`` when card ``c`` is of suit ``s``."""
    return np.eye(NUM_SUITS, dtype=np.float32)[suit_of(np.arange(NUM_CARDS))]


# ---------------------------------------------------------------------- the config
@dataclass(frozen=True)
class NetConfig:
    """A policy network's shape: its ``model_config`` checked against its rules."""

    obs_size: int
    hidden: tuple[int, ...]
    card_features: bool
    arch: str
    players: int


def policy_rules(entry: Any) -> Rules:
    """The rules a policy file names (``{"name": ..., "options": {...}}``)."""
    try:
        return make_rules(entry["name"], entry.get("options", {}))
    except (RulesError, KeyError, TypeError, AttributeError) as e:
        raise CheckpointError(f"the rules it was trained for are not valid: {e}") from None


def net_config(cfg: Any, rules: Rules) -> NetConfig:
    """The checked :class:`NetConfig` of a ``model_config`` entry for ``rules``: bounded
    widths and depth, and the observation width of the rules' player count."""
    try:
        assert isinstance(cfg, dict)
        obs_size, hidden = cfg["obs_size"], cfg["hidden"]
        assert isinstance(obs_size, int) and isinstance(hidden, (list, tuple)) and 0 < len(hidden) <= 16
        assert all(isinstance(h, int) and 0 < h <= 1 << 14 for h in hidden)
        assert obs_size in (layout_for(4).size, layout_for(6).size)  # a layout's width, not an arbitrary (huge) one
        card_features, arch = bool(cfg.get("card_features", False)), cfg.get("arch", "mlp")
        assert arch in ARCHITECTURES
    except (AssertionError, KeyError, ValueError, TypeError):
        raise CheckpointError(f"model_config {str(cfg)[:200]} is not a policy network's") from None
    if layout_for(rules.players).size != obs_size:
        raise CheckpointError(
            f"model_config {str(cfg)[:200]} does not fit its rules {rules.name}: "
            f"{rules.players} players observe {layout_for(rules.players).size} entries, not {obs_size}"
        )
    return NetConfig(obs_size, tuple(hidden), card_features, arch, rules.players)


def weight_shapes(c: NetConfig) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight of the network ``c`` describes (those of
    :class:`agents.nets.policy.PolicyNet`'s state dict)."""
    shapes: dict[str, tuple[int, ...]] = {}

    def linear(name: str, a: int, b: int, bias: bool = True) -> None:
        shapes[f"net.{name}.weight"] = (b, a)
        if bias:
            shapes[f"net.{name}.bias"] = (b,)

    if c.arch == "mlp":
        sizes = [c.obs_size + (NUM_CARD_FEATURES if c.card_features else 0), *c.hidden, NUM_ACTIONS]
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            linear(str(2 * i), a, b)
        return shapes
    inputs, actions = suit_groups(net_input_layout(c.players, c.card_features)), action_suit_groups()
    linear("suit_in", inputs.per_suit.shape[1], c.hidden[0])
    linear("shared_in", len(inputs.shared), c.hidden[0], bias=False)
    for i, (a, b) in enumerate(zip(c.hidden[:-1], c.hidden[1:])):
        linear(f"layers.{i}.own", a, b)
        linear(f"layers.{i}.mean", a, b, bias=False)
    linear("head.own", c.hidden[-1], actions.per_suit.shape[1])
    linear("head.mean", c.hidden[-1], actions.per_suit.shape[1], bias=False)
    linear("shared_head", c.hidden[-1], len(actions.shared))
    return shapes


# ---------------------------------------------------------------------- the network
def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


class NumpyPolicyNet:
    """Observations (B, D) float32 -> logits (B, 85) float32: the forward pass of
    :class:`agents.nets.policy.PolicyNet` (and of its :class:`~agents.nets.features.CardFeatures`
    and :class:`~agents.nets.suitnet.SuitNet`) in numpy, from the same weights by name."""

    def __init__(self, config: NetConfig, weights: Mapping[str, np.ndarray]) -> None:
        self.config, self.weights = config, dict(weights)
        self.obs_size, self.players, self.arch = config.obs_size, config.players, config.arch
        # each Linear's weight transposed once, so a layer is x @ w + b as in torch's x @ W.T + b
        self.w = {k: np.ascontiguousarray(v.T if v.ndim == 2 else v, dtype=np.float32) for k, v in weights.items()}
        self._slices = feature_slices(config.players)
        self._packs = np.float32(PACKS_FOR_PLAYERS[config.players])
        self._higher, self._suit_of = higher_same_suit(), suit_matrix()
        if config.arch == "suits":
            inputs, actions = suit_groups(net_input_layout(config.players, config.card_features)), action_suit_groups()
            self._suit_columns, self._shared_columns = inputs.per_suit.reshape(-1), inputs.shared
            self._per_suit = inputs.per_suit.shape[1]
            order = np.empty(NUM_ACTIONS, dtype=np.int64)
            order[[*actions.per_suit.reshape(-1), *actions.shared]] = np.arange(NUM_ACTIONS)
            self._action_order = order

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float32)
        if self.config.card_features:
            x = self.card_features(x)
        return self._mlp(x) if self.arch == "mlp" else self._suits(x)

    __call__ = logits

    def _linear(self, name: str, x: np.ndarray) -> np.ndarray:
        y = x @ self.w[f"net.{name}.weight"]
        bias = self.w.get(f"net.{name}.bias")
        return y if bias is None else y + bias

    def _mlp(self, x: np.ndarray) -> np.ndarray:
        depth = len(self.config.hidden)
        for i in range(depth):
            x = _relu(self._linear(str(2 * i), x))
        return self._linear(str(2 * depth), x)

    def _suits(self, x: np.ndarray) -> np.ndarray:
        batch = x.shape[0]
        tokens = x[:, self._suit_columns].reshape(batch, NUM_SUITS, self._per_suit)
        h = _relu(self._linear("suit_in", tokens) + self._linear("shared_in", x[:, self._shared_columns])[:, None])
        for i in range(len(self.config.hidden) - 1):
            h = _relu(self._layer(f"layers.{i}", h))
        produced = [self._layer("head", h).reshape(batch, -1), self._linear("shared_head", h.mean(1))]
        return np.concatenate(produced, 1)[:, self._action_order]

    def _layer(self, name: str, h: np.ndarray) -> np.ndarray:
        """A :class:`~agents.nets.suitnet.SuitLayer`: each token from itself and the mean of the four."""
        return self._linear(f"{name}.own", h) + self._linear(f"{name}.mean", h.mean(1, keepdims=True))

    def card_features(self, obs: np.ndarray) -> np.ndarray:
        """``CardFeatures.forward`` (:mod:`agents.nets.features` says what each is)."""
        s, n = self._slices, self.players
        hand = obs[:, s["hand"]]
        played = obs[:, s["played"]].reshape(-1, n, NUM_CARDS).sum(1)
        unseen = np.maximum(self._packs - hand - played, 0.0) / self._packs
        higher_unseen = unseen @ self._higher.T / np.float32(NUM_RANKS - 1)
        master = ((hand > 0) & (higher_unseen <= 1e-6)).astype(np.float32)
        trick = obs[:, s["trick"]].reshape(-1, n, NUM_CARDS)
        winning = np.minimum((trick * obs[:, s["trick_winning"], None]).sum(1), 1.0)
        trump = obs[:, s["trump_suit"]] * obs[:, s["in_force"]]
        winning_is_trump = (winning @ self._suit_of * trump).sum(-1, keepdims=True)
        any_winning = winning.sum(-1, keepdims=True)
        beats = winning @ self._higher + (trump @ self._suit_of.T) * (any_winning - winning_is_trump)
        suit_hand = hand @ self._suit_of / np.float32(NUM_RANKS)
        suit_unseen = unseen @ self._suit_of / np.float32(NUM_RANKS)
        parts = [obs, unseen, higher_unseen, master, np.minimum(beats, 1.0), suit_hand, suit_unseen]
        return np.concatenate(parts, -1, dtype=np.float32)


# ---------------------------------------------------------------------- the file
def write_play_file(
    out: str | Path, weights: Mapping[str, np.ndarray], model_config: dict[str, Any], rules: Rules
) -> None:
    """Write a play file: ``weights`` (a state dict's entries as arrays) as float32, the
    config and the rules in the metadata."""
    from safetensors.numpy import save_file

    rules_entry = {"name": rules.name, "options": rules.option_dict()}
    metadata = {"format": FORMAT, "model_config": json.dumps(model_config), "rules": json.dumps(rules_entry)}
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()}, str(out), metadata)


def naming_file(path: str | Path, read: Callable[[], T]) -> T:
    """``read()``, with any :class:`CheckpointError` it raises naming the file. The error
    is raised outside the handler that caught the cause, so it holds no frame with the
    file's bytes or tensors: a refused file leaves nothing held."""
    name = str(Path(path))
    try:
        return read()
    except CheckpointError as e:
        problem = str(e) if str(e).startswith(name) else f"{name}: {e}"
    raise CheckpointError(problem)


def read_play_file(path: str | Path) -> tuple[NumpyPolicyNet, Rules]:
    """The numpy network and the rules it was trained for, from a play file; every
    problem is one :class:`CheckpointError` naming the file (see the module docstring)."""
    return naming_file(path, lambda: _read_checked(Path(path)))


def _read_checked(p: Path) -> tuple[NumpyPolicyNet, Rules]:
    try:
        data = read_regular_file(p, MAX_PLAY_FILE_BYTES, "a policy file")
        size = int.from_bytes(data[:8], "little") if len(data) >= 8 else len(data)
        if size > len(data) - 8:
            raise CheckpointError("not a policy play file (no safetensors header; nothing in it was run)")
        header = read_json(data[8 : 8 + size].decode("utf-8", errors="replace"), "its header")
        meta = header.pop("__metadata__", None) if isinstance(header, dict) else None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise CheckpointError(f"not a dehla policy play file (its metadata names no format {FORMAT})")
        rules = policy_rules(read_json(str(meta.get("rules")), "its rules"))
        config = net_config(read_json(str(meta.get("model_config")), "its model_config"), rules)
    except UserFileError as e:
        raise CheckpointError(str(e)) from None
    expected = weight_shapes(config)
    declared = {k: (v.get("dtype"), v.get("shape")) for k, v in header.items() if isinstance(v, dict)}
    if len(declared) != len(header) or declared != {k: ("F32", list(shape)) for k, shape in expected.items()}:
        raise CheckpointError(
            "the weights it declares do not fit its model_config (refused before reading them): "
            f"expected {len(expected)} float32 weights {sorted(expected)[:3]}..., found {sorted(header)[:3]}..."
        )
    from safetensors.numpy import load

    try:
        weights = load(data)
    except Exception as e:  # safetensors raises its own error for a broken file
        raise CheckpointError(f"not a valid safetensors file ({type(e).__name__}: {str(e)[:200]})") from None
    return NumpyPolicyNet(config, weights), rules
