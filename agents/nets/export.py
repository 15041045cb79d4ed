"""Turn a training checkpoint into what players use: a play-only policy file, the play
format (read without torch), a TorchScript module or an ONNX graph.

    python -m agents.nets.export runs/RUN/checkpoint.pt --out agents/checkpoints/dehla.pt
    python -m agents.nets.export agents/checkpoints/dehla.pt --out agents/checkpoints/dehla.safetensors --format play
    python -m agents.nets.export runs/RUN/checkpoint.pt --out dehla.onnx --format onnx
    python -m agents.nets.export runs/RUN/checkpoint.pt --out dehla.pt --average-snapshots 4
    python -m agents.nets.export agents/checkpoints/dehla.pt --out dehla.onnx --format onnx --relabel

``--average-snapshots K`` plays the uniform average of the final weights and the last
``K`` frozen snapshots that the trainer keeps for its opponent pool (taken every
``snapshot_every`` updates). Averaging the weights along the end of one run (as in
stochastic weight averaging) smooths out the update-to-update noise of PPO at a
fixed learning rate; whether it helps is a question for the arena, not an assumption.

``--format play`` writes :mod:`agents.nets.play`'s safetensors file, which
``policy:PATH`` plays in numpy (every shipped ``NAME.pt`` ships with its export beside it).

``--relabel`` (TorchScript and ONNX): the graph averages the network over the 24 suit
relabellings of each observation, and plays what ``policy:PATH,relabel=1`` plays
(:class:`agents.nets.policy.RelabelledNet`); a policy file is played that way by its spec.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import torch

from agents.nets.play import write_play_file
from agents.nets.policy import export_onnx, export_torchscript, policy_from_checkpoint, read_checkpoint
from dehla_env.commands import typed_command


def average_state_dicts(state_dicts: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The entry-wise mean of state dicts with the same keys and shapes."""
    if not state_dicts:
        raise ValueError("nothing to average")
    keys = state_dicts[0].keys()
    for sd in state_dicts[1:]:
        if sd.keys() != keys or any(sd[k].shape != state_dicts[0][k].shape for k in keys):
            raise ValueError("state dicts of different networks cannot be averaged")
    return {k: torch.stack([sd[k].float() for sd in state_dicts]).mean(0) for k in keys}


def play_checkpoint(checkpoint: dict[str, Any], average_snapshots: int = 0) -> dict[str, Any]:
    """The play-only entries (model, model_config, rules) of a training checkpoint,
    optionally with the weights averaged over its last snapshots."""
    model = checkpoint["model"]
    if average_snapshots < 0:
        raise ValueError(f"--average-snapshots is a count of snapshots (0 or more), not {average_snapshots}")
    if average_snapshots > 0:
        # the trainer keeps the snapshots in its opponent pool
        snaps = checkpoint.get("pool", {}).get("snapshots", checkpoint.get("snapshots", []))
        if not isinstance(snaps, list):
            raise ValueError("the checkpoint's snapshots entry is not a list of weights")
        if len(snaps) < average_snapshots:
            raise ValueError(f"the checkpoint holds {len(snaps)} snapshots, not {average_snapshots}")
        model = average_state_dicts([model, *snaps[-average_snapshots:]])
    out = {"model": model, "model_config": checkpoint["model_config"], "rules": checkpoint.get("rules")}
    if average_snapshots > 0:
        out["averaged_snapshots"] = average_snapshots
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=typed_command("agents.nets.export"), description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="the trainer's checkpoint.pt or a play-only policy file")
    parser.add_argument("--out", required=True, help="file to write")
    parser.add_argument("--format", choices=["policy", "play", "torchscript", "onnx"], default="policy")
    parser.add_argument("--average-snapshots", type=int, default=0, metavar="K")
    parser.add_argument(
        "--relabel", action="store_true", help="torchscript/onnx: average over the 24 suit relabellings"
    )
    cli = parser.parse_args(argv)
    out = Path(cli.out)
    try:
        if cli.average_snapshots < 0:
            raise ValueError(f"--average-snapshots is 0 or more, not {cli.average_snapshots}")
        if cli.relabel and cli.format in ("policy", "play"):
            raise ValueError(
                "--relabel is for --format torchscript or onnx; a policy file plays it as policy:PATH,relabel=1"
            )
        if out.is_dir():
            raise ValueError(f"--out {out} is a directory; give a file name")
        if not out.parent.is_dir():
            raise ValueError(f"--out {out}: no folder {out.parent}")
        ckpt = read_checkpoint(cli.checkpoint)
        play = play_checkpoint(ckpt, cli.average_snapshots)
        net, rules = policy_from_checkpoint(play)  # checks the entries before anything is written
        if cli.format == "policy":
            torch.save(play, out)
        elif cli.format == "play":
            write_play_file(out, {k: v.float().numpy() for k, v in net.state_dict().items()}, net.config(), rules)
        else:
            (export_torchscript if cli.format == "torchscript" else export_onnx)(net, out, relabel=cli.relabel)
    except (ValueError, OSError) as e:
        print(f"python -m agents.nets.export: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({cli.format}, {out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
