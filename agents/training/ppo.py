"""One PPO update, all of it: the learner (policy, critic, optimiser, device), the
learner's inputs for a whole rollout, GAE, and the clipped loss over minibatches with its
optimiser step. ``agents.train`` calls :func:`update` once per rollout.

The inputs are built once per update (:func:`learner_inputs`), not once per minibatch
and epoch: a rollout stores its observations as small integer codes
(:class:`~agents.training.selfplay.Rollout`), the networks read float vectors (the
policy with the card features of :mod:`agents.nets.features` appended, the critic with
the hidden cards), and the features of an observation do not change between epochs.
With ``bf16`` the inputs are stored in bfloat16, the cast autocast would otherwise make
at every minibatch (the same numbers: the features are sums of a few 0/1 or 1/2
entries, exact in either type, rounded to bfloat16 once either way).

The learner may live on another device than the rollouts (the trainer's ``device``
setting): :attr:`Learner.device` holds its networks and optimiser, the rollout's arrays
are moved there per update, and :meth:`Learner.acting_state` gives the CPU weights the
rollouts play (the batched engine runs on the CPU). On the CPU every step is the one it
always was, bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.nets.policy import PolicyNet, ValueNet
from agents.training.runs import SetupError, Stop
from agents.training.selfplay import Rollout

CHUNK = 8192
"""Rows per pass over the rollout (bounds the temporaries)."""


def resolve_device(name: str) -> torch.device:
    """The learner's device for the setting ``device``: ``auto`` is CUDA when
    ``torch.cuda.is_available()``, else the CPU; ``cpu``, ``cuda`` and ``cuda:N`` as
    named. :class:`SetupError` (one line) for another name or a GPU that is not there."""
    kind, sep, index = name.partition(":")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if kind != "cuda" or (sep and not index.isdigit()):
        raise SetupError(f"setting device: {name!r} is not one of auto, cpu, cuda, cuda:N")
    if not torch.cuda.is_available():
        raise SetupError(f"setting device: {name} asked for, but torch sees no CUDA device (device: auto or cpu)")
    if sep and int(index) >= torch.cuda.device_count():
        raise SetupError(f"setting device: {name}: torch sees {torch.cuda.device_count()} CUDA device(s)")
    return torch.device(name)


def cpu_state(module_or_state: nn.Module | dict[str, Any]) -> dict[str, Any]:
    """A state dict with every tensor on the CPU (a copy when it lived elsewhere), what a
    checkpoint saves and a rollout plays: loadable on a machine without a GPU."""
    state = module_or_state.state_dict() if isinstance(module_or_state, nn.Module) else module_or_state
    return {k: _to_cpu(v) for k, v in state.items()}


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_cpu(v) for v in value]
    return value


@dataclass(frozen=True)
class PPOSettings:
    """The update's settings: the trainer's settings of the same names (their defaults
    and meaning are in :class:`agents.train.Args`, ``dehla-train --help``)."""

    gae_lambda: float
    clip_coef: float
    ent_coef: float
    vf_coef: float
    update_epochs: int
    minibatch_size: int
    max_grad_norm: float
    bf16: bool
    privileged_critic: bool


class Learner:
    """The policy, the critic and their Adam, on one device. Adam is fused: one kernel
    over all the parameters, a fifth of the time of the per-tensor step; a resumed run
    keeps the kind its checkpoint saved (``load_state_dict`` restores the group's
    settings)."""

    def __init__(self, policy: PolicyNet, critic: ValueNet, learning_rate: float, device: torch.device) -> None:
        self.device = device
        self.policy = policy.to(device)
        self.critic = critic.to(device)
        params = [*self.policy.parameters(), *self.critic.parameters()]
        self.opt = torch.optim.Adam(params, lr=learning_rate, eps=1e-5, fused=True)

    def parameters(self) -> Iterator[nn.Parameter]:
        yield from self.policy.parameters()
        yield from self.critic.parameters()

    def set_lr(self, lr: float) -> None:
        for group in self.opt.param_groups:
            group["lr"] = lr

    @property
    def lr(self) -> float:
        return float(self.opt.param_groups[0]["lr"])

    def acting_state(self) -> dict[str, torch.Tensor]:
        """The policy's weights on the CPU, copied: what the rollouts and the pool play."""
        return {k: v.detach().cpu().clone() for k, v in self.policy.state_dict().items()}

    def acting_policy(self) -> PolicyNet:
        """A CPU copy of the policy in eval mode (the evaluation's player)."""
        net = PolicyNet(**self.policy.config(), players=self.policy.players)
        net.load_state_dict(self.acting_state())
        return net.eval()

    def state(self) -> dict[str, Any]:
        """Critic and optimiser state on the CPU (a checkpoint's entries)."""
        return {"critic": cpu_state(self.critic), "optimizer": _to_cpu(self.opt.state_dict())}

    def load(self, model: dict[str, Any], critic: dict[str, Any], optimizer: dict[str, Any]) -> None:
        """Load a checkpoint's weights and optimiser (CPU tensors) onto the device."""
        self.policy.load_state_dict(model)
        self.critic.load_state_dict(critic)
        self.opt.load_state_dict(optimizer)  # Adam moves its state to its parameters' device


# ---------------------------------------------------------------------------- inputs
def learner_inputs(
    policy: PolicyNet, r: Rollout, *, bf16: bool, privileged: bool, device: torch.device | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy's and the critic's input for every sample of ``r``, on ``device`` (the
    CPU by default); without ``privileged`` the critic's hidden-card columns are zeros."""
    device = device or torch.device("cpu")
    dtype = torch.bfloat16 if bf16 else torch.float32
    (t, d), p = r.obs.shape, r.priv.shape[1]
    policy_in = torch.empty(t, policy.input_size, dtype=dtype, device=device)
    critic_in = (torch.empty if privileged else torch.zeros)(t, d + p, dtype=dtype, device=device)
    with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
        for i in range(0, t, CHUNK):
            rows = slice(i, i + CHUNK)
            obs = torch.from_numpy(r.observations(rows)).to(device)
            policy_in[rows] = policy.net_input(obs)
            critic_in[rows, :d] = obs
            if privileged:
                critic_in[rows, d:] = torch.from_numpy(r.priv[rows]).to(device)
    return policy_in, critic_in


def critic_values(critic: ValueNet, critic_in: torch.Tensor, bf16: bool) -> np.ndarray:
    """The critic's value of every sample (GAE's baseline), in bfloat16 autocast with
    ``bf16`` as the update's own value passes are."""
    with torch.no_grad(), torch.autocast(critic_in.device.type, dtype=torch.bfloat16, enabled=bf16):
        chunks = [critic(critic_in[i : i + CHUNK]).float() for i in range(0, len(critic_in), CHUNK)]
        return torch.cat(chunks).cpu().numpy()


# ---------------------------------------------------------------------------- the update
def gae(values: np.ndarray, reward: np.ndarray, done: np.ndarray, lam: float) -> np.ndarray:
    """GAE with gamma 1 over trajectories stored one after another (``done`` ends each)."""
    adv = np.zeros_like(values)
    last = 0.0
    for t in range(len(values) - 1, -1, -1):
        next_value = 0.0 if done[t] else values[t + 1]
        last = reward[t] + next_value - values[t] + (0.0 if done[t] else lam * last)
        adv[t] = last
    return adv


def update(learner: Learner, r: Rollout, s: PPOSettings, *, gen: torch.Generator, stop: Stop) -> dict[str, float]:
    """``s.update_epochs`` passes of clipped PPO over ``r`` in minibatches drawn with
    ``gen`` (a CPU generator: the same permutations on every device); the mean losses,
    entropy, approximate KL and clip fraction."""
    policy, critic, opt, dev = learner.policy, learner.critic, learner.opt, learner.device
    policy_in, critic_in = learner_inputs(policy, r, bf16=s.bf16, privileged=s.privileged_critic, device=dev)
    mask, act = torch.from_numpy(r.mask).to(dev), torch.from_numpy(r.action).to(dev)
    old_logp = torch.from_numpy(r.logp).to(dev)
    values = critic_values(critic, critic_in, s.bf16)
    adv_np = gae(values, r.reward, r.done, s.gae_lambda)
    ret = torch.from_numpy(adv_np + values).to(dev)
    # normalised over the whole rollout: a minibatch's own statistics are undefined for
    # the one sample a remainder can hold (its std is NaN, and so became the weights)
    adv = torch.from_numpy((adv_np - adv_np.mean()) / (adv_np.std() + 1e-8)).to(dev)
    stats: dict[str, list[float]] = {k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")}
    for _ in range(s.update_epochs):
        perm = torch.randperm(len(act), generator=gen)
        for start in range(0, len(act), s.minibatch_size):
            stop.check()
            mb = perm[start : start + s.minibatch_size].to(dev)
            legal = mask.index_select(0, mb)
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=s.bf16):
                logits = policy.masked_net_logits(policy_in.index_select(0, mb), legal).float()
                value = critic(critic_in.index_select(0, mb)).float()
            logp_all = torch.log_softmax(logits, -1)
            logp = logp_all.gather(1, act[mb, None]).squeeze(1)
            ratio = (logp - old_logp[mb]).exp()
            mb_adv = adv[mb]
            pg = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - s.clip_coef, 1 + s.clip_coef)).mean()
            ent = -(logp_all.exp() * logp_all.masked_fill(~legal, 0.0)).sum(-1).mean()  # masked: p log p -> 0
            vloss = 0.5 * ((value - ret[mb]) ** 2).mean()
            loss = pg - s.ent_coef * ent + s.vf_coef * vloss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(list(learner.parameters()), s.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["policy_loss"].append(pg.item())
                stats["value_loss"].append(vloss.item())
                stats["entropy"].append(ent.item())
                stats["approx_kl"].append(float(((ratio - 1) - (logp - old_logp[mb])).mean()))
                stats["clipfrac"].append(float(((ratio - 1).abs() > s.clip_coef).float().mean()))
    return {k: float(np.mean(v)) for k, v in stats.items()}
