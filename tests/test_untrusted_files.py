"""A policy file from a user is untrusted: loading it never runs code, at any entry
point; a broken or foreign file is one clear error; a policy plays only the ruleset it
was trained for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.nets.policy import CheckpointError, PolicyNet, load_policy, read_checkpoint  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from dehla_env import make_rules  # noqa: E402
from dehla_env.encoding import observation_size  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


class _Payload:
    """Unpickling this runs code: it writes the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def _payload_file(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "payload-ran"
    net = PolicyNet(observation_size(make_rules("dehla")), (8,))
    path = tmp_path / "evil.pt"
    torch.save(
        {"model": net.state_dict(), "model_config": net.config(), "rules": {"name": "dehla"}, "x": _Payload(marker)},
        path,
    )
    return path, marker


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_loader_refuses_a_payload_and_runs_nothing(tmp_path: Path) -> None:
    path, marker = _payload_file(tmp_path)
    with pytest.raises(CheckpointError, match="refused"):
        read_checkpoint(path)
    with pytest.raises(CheckpointError, match="refused"):
        load_policy(path)
    with pytest.raises(ValueError, match="refused"):
        make_agent(f"policy:{path}", make_rules("dehla"))
    assert not marker.exists()


@pytest.mark.parametrize(
    "command",
    [
        [
            "-m",
            "agents.arena",
            "--rules",
            "dehla",
            "--a",
            "policy:{path}",
            "--b",
            "random",
            "--deals",
            "2",
            "--workers",
            "1",
        ],
        [
            "-m",
            "agents.arena",
            "--rules",
            "dehla",
            "--a",
            "policy:{path}",
            "--b",
            "random",
            "--deals",
            "4",
            "--workers",
            "2",
        ],
        ["-m", "agents.play", "--rules", "dehla", "--partner", "policy:{path}"],
        ["-m", "agents.nets.export", "{path}", "--out", "{tmp}/out.pt"],
        ["-c", "import gymnasium, agents; gymnasium.make('DehlaPakad-v0', opponents='policy:{path}')"],
    ],
    ids=["arena", "arena-2-workers", "play", "export", "gymnasium"],
)
def test_every_entry_point_refuses_a_payload(tmp_path: Path, command: list[str]) -> None:
    path, marker = _payload_file(tmp_path)
    out = _run(*[c.format(path=path, tmp=tmp_path) for c in command])
    assert out.returncode != 0
    assert "refused" in out.stderr
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["missing", "directory", "text", "truncated", "not-a-policy"])
def test_a_bad_file_is_one_clear_error(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "p.pt"
    if kind == "directory":
        path.mkdir()
    elif kind == "text":
        path.write_text("hello")
    elif kind == "truncated":
        torch.save({"model": {}, "model_config": {}}, path)
        path.write_bytes(path.read_bytes()[:40])
    elif kind == "not-a-policy":
        torch.save({"weights": torch.zeros(3)}, path)
    with pytest.raises(CheckpointError) as err:
        load_policy(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    out = _run("-m", "agents.arena", "--rules", "dehla", "--a", f"policy:{path}", "--b", "random", "--deals", "2")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_a_policy_refuses_a_ruleset_it_was_not_trained_for() -> None:
    shipped = make_agent("policy:dehla", make_rules("dehla"))
    assert shipped.act is not None
    for rules in (make_rules("dehla", trump="chosen"), make_rules("court-piece"), make_rules("dehla-direct")):
        with pytest.raises(ValueError, match="was trained for dehla"):
            make_agent("policy:dehla", rules)


def _crafted_checkpoint(path: Path, numel: int = 80 << 20) -> Path:
    """A file of a few hundred KB whose storage declares ``numel`` floats (320 MiB, over
    the loader's cap) in a deflated record of zeros: ``torch.load`` alone allocates it
    all (a gigabyte for 268 M floats), since the record's size matches the declaration."""
    import collections
    import io
    import pickle
    import zipfile

    class Storage:
        pass

    class Tensor:
        def __reduce__(self) -> tuple[object, ...]:
            rebuild = torch._utils._rebuild_tensor_v2
            return (rebuild, (Storage(), 0, (numel,), (1,), False, collections.OrderedDict()))

    class Pickler(pickle.Pickler):
        def persistent_id(self, obj: object) -> object:
            return ("storage", torch.FloatStorage, "0", "cpu", numel) if isinstance(obj, Storage) else None

    buf = io.BytesIO()
    Pickler(buf, protocol=2).dump({"model": {"w": Tensor()}, "model_config": {"obs_size": 1, "hidden": [1]}})
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", buf.getvalue())
        z.writestr("archive/byteorder", "little")
        z.writestr("archive/version", "3\n")
        info = zipfile.ZipInfo("archive/data/0")
        info.compress_type = zipfile.ZIP_DEFLATED
        zeros = bytes(16 << 20)
        with z.open(info, "w", force_zip64=True) as record:
            for _ in range(numel * 4 // len(zeros)):
                record.write(zeros)
    return path


def test_a_crafted_checkpoint_is_refused_before_torch_allocates_it(tmp_path: Path) -> None:
    path = _crafted_checkpoint(tmp_path / "huge.pt")
    assert path.stat().st_size < 1 << 20
    code = f"""
import resource, time
from agents.nets.policy import CheckpointError, load_policy
from agents.registry import make_agent
from dehla_env import make_rules
def peak(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10
def rss():
    with open('/proc/self/statm') as f: return int(f.read().split()[1]) * resource.getpagesize() >> 20
load_policy('agents/checkpoints/dehla.pt')  # torch and the loader warmed up
before, start = peak(), time.perf_counter()
for _ in range(4):
    try:
        make_agent('policy:{path}', make_rules('dehla'))
    except ValueError as e:
        assert 'refused before' in str(e) and 'cap' in str(e), e
    else:
        raise SystemExit('loaded')
print(peak() - before, rss() - before, time.perf_counter() - start)
"""
    out = _run("-c", code)
    assert out.returncode == 0, out.stderr
    grown, held, seconds = (float(x) for x in out.stdout.split())
    assert grown < 64 and held < 64 and seconds < 2.0  # MB, MB, s: nothing near the declared gigabyte


def test_a_fifo_or_device_is_refused_at_once(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(CheckpointError, match="not a regular file"):
            load_policy(path)
