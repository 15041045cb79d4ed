"""Neural policies in torch: the network, the checkpoint format and the exports.

A policy maps the flat observation (:mod:`dehla_env.encoding`) to logits over the flat
action layout; illegal actions are masked to ``-inf`` before the softmax. The same
network plays every seat (observations are seat-relative). Training (``agents.train``)
also keeps a critic, which may read privileged inputs; the shipped checkpoint's
``model`` entry holds only what play needs.

Checkpoint (``torch.save`` dict): ``model`` (policy state dict), ``model_config``
(layer sizes), ``rules`` (preset name and options it was trained for), and, for
training checkpoints, ``critic``, ``optimizer``, ``rng`` and ``step`` state (see
``agents.train``). Play reads the play format (:mod:`agents.nets.play`) instead, without
torch; the ``policy:PATH`` agent is :mod:`agents.nets.agent`.
"""

from __future__ import annotations

import functools
import io
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.nets.features import CardFeatures
from agents.nets.play import (
    ARCHITECTURES,
    NUM_CARD_FEATURES,
    PLAY_SUFFIX,
    CheckpointError,
    naming_file,
    net_config,
    net_input_layout,
    policy_rules,
    read_play_file,
)
from agents.nets.suitnet import SuitNet, SuitValue
from agents.user_files import UserFileError, read_regular_file
from dehla_env.actions import NUM_ACTIONS
from dehla_env.augment import relabel_tables
from dehla_env.encoding import Layout, layout_for, observation_size, privileged_layout
from dehla_env.rules import Rules


def mlp(sizes: list[int], out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(sizes[-1], out))
    return nn.Sequential(*layers)


def players_for_observation(obs_size: int) -> int:
    """The player count whose flat observation has ``obs_size`` entries."""
    for n in (4, 6):
        if layout_for(n).size == obs_size:
            return n
    raise ValueError(f"no layout has {obs_size} entries")


class PolicyNet(nn.Module):
    """Observation -> action logits: an MLP (or a :class:`~agents.nets.suitnet.SuitNet`),
    optionally over the observation plus the card-counting features of
    :class:`agents.nets.features.CardFeatures`."""

    def __init__(
        self,
        obs_size: int,
        hidden: tuple[int, ...] = (512, 256),
        card_features: bool = False,
        arch: str = "mlp",
        *,
        players: int | None = None,
    ) -> None:
        """``players``: the player count of the rules it plays (R1.1), which the card
        features and the suit network are built for; left out, the count whose
        observation is ``obs_size`` wide."""
        super().__init__()
        if arch not in ARCHITECTURES:
            raise ValueError(f"arch must be one of {ARCHITECTURES}, not {arch!r}")
        if players is not None and layout_for(players).size != obs_size:
            raise ValueError(f"{players} players observe {layout_for(players).size} entries, not {obs_size}")
        self.obs_size, self.hidden, self.card_features, self.arch = obs_size, tuple(hidden), card_features, arch
        needs_players = card_features or arch == "suits"
        self.players = players if players is not None or not needs_players else players_for_observation(obs_size)
        self.features = CardFeatures(self.players) if self.players is not None and card_features else None
        self.input_size = obs_size + (NUM_CARD_FEATURES if card_features else 0)  # of the MLP: see net_input
        if arch == "suits":
            assert self.players is not None
            self.net: nn.Module = SuitNet(net_input_layout(self.players, card_features), self.hidden)
        else:
            self.net = mlp([self.input_size, *hidden], NUM_ACTIONS)

    @classmethod
    def for_rules(
        cls, rules: Rules, hidden: tuple[int, ...] = (512, 256), card_features: bool = False, arch: str = "mlp"
    ) -> PolicyNet:
        """A network for ``rules``: their observation's width and their player count."""
        return cls(observation_size(rules), hidden, card_features, arch, players=rules.players)

    def net_input(self, obs: torch.Tensor) -> torch.Tensor:
        """The MLP's input for observations ``obs``: the observation, with the card
        features appended when the net has them. A function of the observation alone, so
        the PPO update builds it once per rollout rather than once per epoch."""
        return obs if self.features is None else self.features(obs)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(self.net_input(obs))

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.masked_net_logits(self.net_input(obs), mask)

    def masked_net_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The logits, illegal actions at ``-inf``, from the MLP's input ``x``
        (:meth:`net_input`, which the PPO update prepares once per rollout)."""
        return self.net(x).masked_fill(~mask, float("-inf"))

    @torch.no_grad()
    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The logits (B, 85) of observations ``obs`` (B, D), as numpy: what play asks of
        a network, numpy's (:class:`agents.nets.play.NumpyPolicyNet`) or this one."""
        return self(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))).numpy()

    def config(self) -> dict[str, Any]:
        """The constructor's arguments (``arch`` only when not the MLP, so the configs of
        checkpoints written before it existed stay as they were)."""
        cfg: dict[str, Any] = {
            "obs_size": self.obs_size,
            "hidden": list(self.hidden),
            "card_features": self.card_features,
        }
        return cfg if self.arch == "mlp" else {**cfg, "arch": self.arch}


class ValueNet(nn.Module):
    """Critic: (privileged) input -> value of the state for the observer's side. An MLP,
    or with ``arch="suits"`` a :class:`~agents.nets.suitnet.SuitValue` over the
    observation followed by :func:`~dehla_env.encoding.privileged_features` (what the
    trainer's critic reads; ``players`` then says whose)."""

    def __init__(
        self, in_size: int, hidden: tuple[int, ...] = (512, 256), arch: str = "mlp", *, players: int | None = None
    ) -> None:
        super().__init__()
        if arch not in ARCHITECTURES:
            raise ValueError(f"arch must be one of {ARCHITECTURES}, not {arch!r}")
        self.in_size, self.hidden, self.arch = in_size, tuple(hidden), arch
        if arch == "suits":
            counts = (players,) if players is not None else (4, 6)
            layouts = [critic_input_layout(n) for n in counts if critic_input_layout(n).size == in_size]
            if not layouts:
                raise ValueError(f"a suits critic reads an observation and its hidden cards, not {in_size} entries")
            self.net: nn.Module = SuitValue(layouts[0], self.hidden)
        else:
            self.net = mlp([in_size, *hidden], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)

    def config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = {"in_size": self.in_size, "hidden": list(self.hidden)}
        return cfg if self.arch == "mlp" else {**cfg, "arch": self.arch}


def critic_input_layout(num_players: int) -> Layout:
    """The critic's input: the observation's slices, then the privileged ones
    (:meth:`dehla_env.env.raw_env.privileged_observation`'s order)."""
    parts = [(s.name, s.axes, s.shape) for s in layout_for(num_players).slices.values()]
    parts += [(s.name, s.axes, s.shape) for s in privileged_layout(num_players).slices.values()]
    return Layout(num_players, parts)


#: the largest checkpoint file read at all (the shipped policies are under 1 MB)
MAX_CHECKPOINT_FILE_BYTES = 256 << 20
#: the most tensor data a checkpoint may declare, summed over its storages, checked
#: before torch allocates any of it: a zip record can be deflated, so a 1 MB file can
#: declare a gigabyte of zeros
MAX_CHECKPOINT_TENSOR_BYTES = 256 << 20
#: the largest pickle (the checkpoint's structure, without the tensor data)
MAX_CHECKPOINT_PICKLE_BYTES = 16 << 20

_ITEM_BYTES = {
    "DoubleStorage": 8, "FloatStorage": 4, "HalfStorage": 2, "BFloat16Storage": 2, "LongStorage": 8, "IntStorage": 4,
    "ShortStorage": 2, "CharStorage": 1, "ByteStorage": 1, "BoolStorage": 1, "ComplexFloatStorage": 8,
    "ComplexDoubleStorage": 16, "UntypedStorage": 1,  # an untyped storage's declared size is in bytes
}  # fmt: skip
#: the globals a checkpoint's pickle may name (what ``torch.save`` of tensors, state
#: dicts and plain data writes); anything else is refused before torch reads the file
_PLAIN_GLOBALS = {
    "collections.OrderedDict", "_codecs.encode", "builtins.set", "builtins.frozenset", "builtins.bytearray",
    "builtins.complex", "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state", "torch.device", "torch.Size", "torch.serialization._get_layout",
    "torch.storage.UntypedStorage",
}  # fmt: skip


class _Stub:
    """Whatever the scanning unpickler builds: it records nothing and runs nothing."""

    def __init__(self, name: str = "") -> None:
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> _Stub:
        return _Stub()

    def __setitem__(self, key: Any, value: Any) -> None: ...
    def __setstate__(self, state: Any) -> None: ...
    def append(self, value: Any) -> None: ...
    def extend(self, values: Any) -> None: ...


class _DeclaredStorages(pickle.Unpickler):
    """Reads a checkpoint's pickle without building anything: the globals it names
    become :class:`_Stub` objects (so nothing is imported or run) and every storage it
    declares is collected as ``(key, bytes)``, so the sizes can be checked before
    torch allocates them."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.storages: dict[str, int] = {}
        self.refused: str | None = None

    def find_class(self, module: str, name: str) -> Any:
        full = f"{module}.{name}"
        plain = full in _PLAIN_GLOBALS or (
            module == "torch" and (name in _ITEM_BYTES or isinstance(getattr(torch, name, None), torch.dtype))
        )
        if not plain and self.refused is None:
            self.refused = full
        return _Stub(name)

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise CheckpointError(f"an unknown kind of storage record ({str(pid)[:80]})")
        _kind, storage_type, key, _location, numel = pid
        if not isinstance(numel, int) or numel < 0 or not isinstance(key, str):
            raise CheckpointError("a storage record with no valid size")
        item = _ITEM_BYTES.get(getattr(storage_type, "name", ""), 16)  # an unknown type: the widest
        self.storages[key] = numel * item
        return _Stub("storage")


def _refused(name: str) -> CheckpointError:
    """A checkpoint holding ``name``, a global no plain checkpoint names."""
    return CheckpointError(
        f"refused: it holds {name}, which a plain checkpoint never does "
        "(only tensors and plain data load; nothing in the file was run)"
    )


def _check_declared_sizes(data: bytes) -> None:
    """Refuse a checkpoint whose zip records or declared storages are over the caps,
    or whose pickle names a global a plain checkpoint never does; reads only the zip
    directory and the pickle, never the tensor data."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise CheckpointError("not a torch checkpoint (not a zip archive; nothing in it was run)") from None
    if len(infos) > 100_000:
        raise CheckpointError(f"not a plain checkpoint ({len(infos)} records)")
    declared = sum(i.file_size for i in infos)
    if declared > MAX_CHECKPOINT_TENSOR_BYTES + MAX_CHECKPOINT_PICKLE_BYTES:
        raise CheckpointError(f"its records unpack to {declared} bytes, over the caps (refused before reading them)")
    pickles = [i for i in infos if i.filename.endswith("/data.pkl") or i.filename == "data.pkl"]
    if len(pickles) != 1:
        raise CheckpointError("not a torch checkpoint (no data.pkl record; nothing in it was run)")
    if pickles[0].file_size > MAX_CHECKPOINT_PICKLE_BYTES:
        raise CheckpointError(f"its structure is {pickles[0].file_size} bytes, over the cap")
    scan = _DeclaredStorages(archive.read(pickles[0]))
    try:
        scan.load()
    except CheckpointError:
        raise
    except Exception as e:  # a broken pickle: whatever the unpickler raises
        raise CheckpointError(f"not a torch checkpoint ({type(e).__name__}; nothing in it was run)") from None
    if scan.refused is not None:
        raise _refused(scan.refused)
    total = sum(scan.storages.values())
    if total > MAX_CHECKPOINT_TENSOR_BYTES:
        raise CheckpointError(
            f"its tensors declare {total} bytes, over the {MAX_CHECKPOINT_TENSOR_BYTES >> 20} MiB cap "
            "(refused before allocating them)"
        )


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load a checkpoint file safely: a user's file is untrusted, so

    * only a regular file is read (never a FIFO or a device, which would block), of at
      most :data:`MAX_CHECKPOINT_FILE_BYTES`;
    * its zip directory and pickle are read first, without building anything, and the
      tensor sizes they declare are capped (:data:`MAX_CHECKPOINT_TENSOR_BYTES`) before
      torch allocates them;
    * then it is read with ``torch.load(weights_only=True)``, which builds only tensors
      and plain containers and refuses any pickled object that could run code.

    Every problem is one :class:`CheckpointError` naming the file (never a torch
    traceback, :func:`~agents.nets.play.naming_file`)."""
    return naming_file(path, lambda: _load_checked(Path(path)))


def _load_checked(p: Path) -> Any:
    try:
        data = read_regular_file(p, MAX_CHECKPOINT_FILE_BYTES, "a checkpoint file")
    except UserFileError as e:
        raise CheckpointError(str(e)) from None
    _check_declared_sizes(data)
    try:
        ckpt = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        text = str(e)
        found = re.search(r"Unsupported global: GLOBAL (\S+)", text)
        if found:  # a pickled object that would run code or build arbitrary classes
            raise _refused(found.group(1)) from None
        raise CheckpointError("not a torch checkpoint (unreadable as one; nothing in it was run)") from None
    except Exception as e:  # torch raises RuntimeError, EOFError, ... for a non-checkpoint
        raise CheckpointError(f"not a torch checkpoint ({type(e).__name__}: {str(e)[:200]})") from None
    if not isinstance(ckpt, dict) or "model" not in ckpt or "model_config" not in ckpt:
        raise CheckpointError("not a dehla policy checkpoint (no model and model_config entries)")
    return ckpt


def load_policy(path: str | Path) -> tuple[PolicyNet, Rules]:
    """The policy network and the rules it was trained for, from a checkpoint file or a
    play file (:mod:`agents.nets.play`, read without torch, then its weights copied in)."""
    if Path(path).suffix == PLAY_SUFFIX:
        played, rules = read_play_file(path)
        c = played.config
        net = PolicyNet(c.obs_size, c.hidden, c.card_features, c.arch, players=c.players)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in played.weights.items()})
        return net.eval(), rules
    # the checkpoint lives in the lambda's frame only: a refused file's tensors go with it
    return naming_file(path, lambda: policy_from_checkpoint(read_checkpoint(path)))


def policy_from_checkpoint(ckpt: dict[str, Any]) -> tuple[PolicyNet, Rules]:
    """The policy network and its rules from a loaded checkpoint (training or play-only);
    :class:`CheckpointError` if its entries do not describe a policy of this project."""
    rules = policy_rules(ckpt.get("rules", {"name": "dehla", "options": {}}))
    c = net_config(ckpt.get("model_config"), rules)  # told its rules: the network plays the rules it names
    net = PolicyNet(c.obs_size, c.hidden, c.card_features, c.arch, players=c.players)
    try:
        net.load_state_dict(ckpt["model"])
    except (RuntimeError, TypeError, AttributeError, KeyError) as e:
        raise CheckpointError(f"the weights do not fit model_config: {str(e)[:200]}") from None
    return net.eval(), rules


def policy_checkpoint(net: PolicyNet, rules: Rules) -> dict[str, Any]:
    """The play-only entries of a policy file (model, model_config, rules): what
    :func:`policy_from_checkpoint` reads back as ``(net, rules)``."""
    return {
        "model": net.state_dict(),
        "model_config": net.config(),
        "rules": {"name": rules.name, "options": rules.option_dict()},
    }


@functools.cache
def relabel_indices(num_players: int) -> tuple[torch.Tensor, torch.Tensor]:
    """For all 24 suit relabellings (:mod:`dehla_env.augment`): the gather index of each
    relabelled observation (24, D) and the relabelled action of every action (24, 85)."""
    tables = relabel_tables(num_players)
    return torch.as_tensor(tables.obs), torch.as_tensor(tables.action)


class RelabelledNet(nn.Module):
    """``obs -> logits``: the network's logits for the 24 suit relabellings of each
    observation, each mapped back to this game's actions, averaged. Over the legal
    actions its softmax and argmax are those of :class:`~agents.nets.agent.PolicyAgent` with ``relabel``
    (the mean of masked log-probabilities differs from the mean of the logits by a
    constant per position), so an export of it plays what ``policy:NAME,relabel=1``
    plays, in a runtime without this package."""

    gather_obs: torch.Tensor
    new_action: torch.Tensor

    def __init__(self, net: PolicyNet) -> None:
        super().__init__()
        self.net = net
        self.obs_size = net.obs_size
        gather_obs, new_action = relabel_indices(net.players or players_for_observation(net.obs_size))
        self.register_buffer("gather_obs", gather_obs, persistent=False)
        self.register_buffer("new_action", new_action, persistent=False)

    def views(self, obs: torch.Tensor) -> torch.Tensor:
        """(batch, 24, actions): the logits of each relabelling, mapped back to the
        actions of the game as given."""
        views = len(self.new_action)
        logits = self.net(obs[:, self.gather_obs].reshape(-1, self.obs_size)).reshape(-1, views, NUM_ACTIONS)
        return torch.gather(logits, 2, self.new_action.expand(logits.shape[0], -1, -1))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.views(obs).mean(1)


def _exported(policy: str | Path | PolicyNet, relabel: bool) -> tuple[nn.Module, int]:
    """The module an export traces (the network, or it over the relabellings) and its
    observation size."""
    net = policy if isinstance(policy, PolicyNet) else load_policy(policy)[0]
    return (RelabelledNet(net) if relabel else net), net.obs_size


def export_torchscript(policy: str | Path | PolicyNet, out: str | Path, relabel: bool = False) -> Path:
    """Export a policy (a network or a checkpoint file) to TorchScript: ``logits = module(obs)``;
    with ``relabel`` the logits of :class:`RelabelledNet`."""
    net, obs_size = _exported(policy, relabel)
    torch.jit.trace(net, torch.zeros(1, obs_size)).save(str(out))
    return Path(out)


class MaskedPolicy(nn.Module):
    """The graph players run: ``(obs, mask) -> (masked logits, action)``, the action the
    greedy legal move. Exported so that a runtime without this package still plays only
    legal moves (the mask is an input; illegal actions get ``-inf``)."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = self.net(obs).masked_fill(~mask, float("-inf"))
        return logits, logits.argmax(-1)


def export_onnx(policy: str | Path | PolicyNet, out: str | Path, relabel: bool = False) -> Path:
    """Export a policy (a network or a checkpoint file) to ONNX: inputs ``obs`` [batch, D]
    float32 and ``mask`` [batch, 85] bool (the legal actions), outputs ``logits`` (masked:
    -inf where illegal) and ``action`` [batch] int64, the greedy legal action; with
    ``relabel`` averaged over the suit relabellings (:class:`RelabelledNet`)."""
    net, obs_size = _exported(policy, relabel)
    torch.onnx.export(
        MaskedPolicy(net).eval(),
        (torch.zeros(1, obs_size), torch.ones(1, NUM_ACTIONS, dtype=torch.bool)),
        str(out),
        input_names=["obs", "mask"],
        output_names=["logits", "action"],
        dynamic_axes={"obs": {0: "batch"}, "mask": {0: "batch"}, "logits": {0: "batch"}, "action": {0: "batch"}},
        dynamo=False,
    )
    return Path(out)
