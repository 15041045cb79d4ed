"""What every training run needs around the learning: settings read from YAML and
``key=value`` overrides with their types checked, stop requests from signals, atomic
checkpoint files, and the errors that end a run with one line.

``agents.train`` (``dehla-train``) uses these; they hold no learning and know no ruleset.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import signal
import tempfile
import time
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import torch
import yaml
from torch.utils.tensorboard import SummaryWriter

from agents import user_files
from agents.user_files import one_line

T = TypeVar("T")


class SetupError(Exception):
    """A bad command line, config, setting, run directory or checkpoint, found before
    anything is trained: main prints the message as one line and exits 2."""


class SaveError(OSError):
    """A checkpoint could not be written (disk full, no permission, ...): one line, exit 1."""


class WorkerDied(Exception):
    """A rollout worker ended without being asked to (killed from outside)."""


class Interrupted(BaseException):
    """Raised where the run notices a stop request (see :class:`Stop`); like
    ``KeyboardInterrupt``, no ``except Exception`` on the way swallows it."""


def _checked(key: str, value: Any, hint: Any) -> Any:
    """``value`` as the type of setting ``key`` (``hint``): an int is a float, and so is a
    string such as ``1e-4`` (YAML 1.1 reads it as text); :class:`SetupError` otherwise."""
    origin, params = typing.get_origin(hint), typing.get_args(hint)

    def bad(what: str) -> SetupError:
        return SetupError(f"setting {key}: expected {what}, not {value!r}")

    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType) and type(None) in params:  # ``float | None``
        if value is None:
            return None
        (inner,) = [p for p in params if p is not type(None)]
        return _checked(key, value, inner)
    if hint is bool:
        if not isinstance(value, bool):
            raise bad("true or false")
    elif hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
    elif hint is float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise bad("a number") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        return float(value)
    elif hint is str:
        if not isinstance(value, str):
            raise bad("a string")
    elif origin is list:
        if not isinstance(value, list):
            raise bad("a list")
        return [_checked(f"{key}[{i}]", v, params[0]) for i, v in enumerate(value)]
    elif origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise bad("a mapping")
        return {k: _checked(f"{key}.{k}", v, params[1]) for k, v in value.items()}
    return value


#: the largest config file (or ``--override`` value) read, in bytes: a config is a few
#: hundred bytes, so this refuses a wrong file (a checkpoint, a log) before YAML parses it
MAX_CONFIG_BYTES = 256 * 1024


class _ConfigDumper(yaml.SafeDumper):
    """Writes a run's ``config.yaml`` with no anchors or aliases, so
    :func:`read_yaml` (which refuses them) reads back whatever it wrote (PyYAML writes an alias for an
    object that appears twice)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def read_yaml(text: str, where: str) -> Any:
    """The value of the YAML ``text`` (a config file's or an ``--override`` value's),
    read safely (:func:`agents.user_files.read_yaml`: no aliases, no key given twice);
    :class:`SetupError` naming ``where`` for text over :data:`MAX_CONFIG_BYTES` or any
    of those problems."""
    if len(text) > MAX_CONFIG_BYTES:
        raise SetupError(f"{where}: {len(text)} characters; settings are at most {MAX_CONFIG_BYTES}")
    try:
        return user_files.read_yaml(text, where)
    except user_files.UserFileError as e:
        raise SetupError(str(e)) from None


def dump_yaml(settings: dict[str, Any]) -> str:
    """``settings`` as the YAML of a run's ``config.yaml`` (no aliases: :func:`read_yaml` reads it)."""
    return yaml.dump(settings, Dumper=_ConfigDumper, sort_keys=False)


def read_config_file(path: Path) -> Any:
    """The YAML value of the config file ``path``: a regular file of at most
    :data:`MAX_CONFIG_BYTES` (a directory, a device or a FIFO is refused before it is
    read), valid UTF-8, read by :func:`read_yaml`; :class:`SetupError` otherwise."""
    try:
        text = user_files.read_text(path, MAX_CONFIG_BYTES, "a config")
    except user_files.NoSuchUserFile:
        names = ", ".join(shipped_config_names())
        raise SetupError(f"{path}: no such config file (or a shipped config's name: {names})") from None
    except user_files.UserFileError as e:
        raise SetupError(str(e)) from None
    return read_yaml(text, str(path))


_INSTALLED = Path(__file__).resolve().parents[1] / "configs"
SHIPPED_CONFIGS = _INSTALLED if any(_INSTALLED.glob("*.yaml")) else Path(__file__).resolve().parents[2] / "configs"
"""The configs shipped with the package (one per shipped policy, ``small``, ``quick``): the
repository's ``configs/``, which a wheel installs as ``agents/configs/`` (pyproject.toml)."""


def shipped_config_names() -> list[str]:
    """The names ``--config`` takes besides a path: ``dehla``, ``quick`` ..."""
    return sorted(p.stem for p in SHIPPED_CONFIGS.glob("*.yaml"))


def config_file(config: str | Path) -> Path:
    """The YAML file ``--config`` names: an existing path, else a shipped config's name
    (``dehla`` or ``dehla.yaml``), so an installed package trains without a checkout."""
    path = Path(config)
    if path.exists() or path.parent != Path("."):
        return path
    shipped = SHIPPED_CONFIGS / f"{path.stem}.yaml"
    if path.suffix in ("", ".yaml") and shipped.is_file():
        return shipped
    return path


def load_settings(cls: type[T], config: str | Path | None, overrides: list[str]) -> T:
    """Settings from a YAML file, then ``key=value`` overrides; :class:`SetupError` for a
    missing or malformed file, an unknown setting (the message lists the known ones) or
    a value of the wrong type."""
    known = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    values: dict[str, Any] = {}

    def take(items: dict[Any, Any], where: str) -> None:
        unknown = sorted(str(k) for k in items if k not in known)
        if unknown:
            raise SetupError(f"unknown setting(s) {', '.join(unknown)} in {where}; known settings: {', '.join(known)}")
        values.update(items)

    if config:
        path = config_file(config)
        loaded = read_config_file(path)
        if loaded is not None and not isinstance(loaded, dict):
            raise SetupError(f"{path}: a config is a mapping of settings, not {type(loaded).__name__} {loaded!r:.60}")
        take(loaded or {}, str(path))
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise SetupError(f"--override wants key=value, not {item!r}")
        shown = item if len(item) <= 60 else item[:60] + "..."
        take({key.strip(): read_yaml(raw, f"--override {shown}")}, "--override")
    hints = typing.get_type_hints(cls)
    return cls(**{k: _checked(k, v, hints[k]) for k, v in values.items()})


class Stop:
    """Stop requests. The SIGINT/SIGTERM handler records the first signal; the training
    loops call :meth:`check` between steps (it raises :class:`Interrupted`). Inside
    :meth:`abortable` (work that is thrown away when stopped: in-process rollouts,
    evaluation) the handler raises at once."""

    def __init__(self) -> None:
        self.signum = 0
        self._abortable = False

    def handler(self, signum: int, frame: Any) -> None:
        self.signum = self.signum or signum
        if self._abortable:
            self._abortable = False
            raise Interrupted

    def check(self) -> None:
        if self.signum:
            raise Interrupted

    @contextlib.contextmanager
    def abortable(self) -> Iterator[None]:
        self.check()
        self._abortable = True
        try:
            yield
        finally:
            self._abortable = False


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Write ``state`` to ``path`` atomically: serialised in memory, written to ``path``
    with the suffix ``.tmp``, flushed to disk and renamed over ``path``, so a reader sees
    the old file or the new one, never a part of one. On any failure the ``.tmp`` file
    is removed; a full disk or a missing permission is one :class:`SaveError` (torch's
    own file writer reports those as a ``RuntimeError`` of its zip writer)."""
    tmp = path.with_suffix(".tmp")
    buf = io.BytesIO()
    torch.save(state, buf)
    try:
        with open(tmp, "wb") as f:
            f.write(buf.getbuffer())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise SaveError(f"cannot save {path}: {e.strerror or one_line(e)}") from None
        raise


def stop_report(
    e: Interrupted | WorkerDied,
    signum: int,
    phase: str,
    run_dir: Path,
    save_last: Callable[[], int] | None,
    *,
    prog: str = "dehla-train",
) -> tuple[str, int]:
    """The one line and exit status of a run that a signal (``signum``) or a dead worker
    stopped during ``phase``. ``save_last`` saves the last completed update and returns
    its number (``None`` before there is one: the warm start saves nothing); ``prog``: the
    command as typed, for the line that continues the run."""
    why = one_line(e) if isinstance(e, WorkerDied) else f"stopped by {signal.Signals(signum).name}"
    code = 1 if isinstance(e, WorkerDied) else 128 + signum  # 130 SIGINT, 143 SIGTERM
    again = f"{prog} --resume {run_dir}"
    if save_last is None:
        return f"{why} during the {phase}, before the first checkpoint; {again} starts the run again", code
    try:
        saved = save_last()
    except SaveError as err:
        return f"{why} during the {phase}; {err}", 1
    return f"{why} during the {phase}; saved update {saved} in {run_dir / 'checkpoint.pt'}; continue with {again}", code


def open_run_dir(run_dir: Path, resume: bool, settings: dict[str, Any]) -> SummaryWriter:
    """The run directory made ready and its TensorBoard writer: a new run writes its
    resolved ``config.yaml``; a resume checks the directory is writable and removes the
    ``.tmp`` files of a run killed while saving. A resume never writes ``config.yaml``
    here: the settings it changed are stored by :class:`ResumeChanges` with its first
    checkpoint. :class:`SetupError` for a directory that cannot be written."""
    try:
        if resume:
            tempfile.TemporaryFile(dir=run_dir).close()  # writable?
            for stale in ("checkpoint.tmp", "policy.tmp", "config.tmp"):
                (run_dir / stale).unlink(missing_ok=True)
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "config.yaml").write_text(dump_yaml(settings))
        return SummaryWriter(str(run_dir))
    except OSError as e:
        raise SetupError(f"cannot write to the run directory {run_dir}: {e.strerror or one_line(e)}") from None


@dataclasses.dataclass
class ResumeChanges:
    """The settings a resume changed (``--override``), stored in the run's
    ``config.yaml`` (and a line of ``resumes.log``) together with the resumed run's first
    checkpoint, not before.

    Until then the run directory says what it said before the resume: a resume that
    fails anywhere before its first checkpoint (a full disk, a dead worker, a bad
    setting found late, Ctrl-C in the warm start) leaves ``config.yaml`` as it was, and
    a later plain ``--resume`` trains with the settings the checkpoint was trained
    with. From that checkpoint on the two agree: the new ``config.yaml`` is written in
    full to ``config.tmp`` before the checkpoint and renamed over ``config.yaml`` once
    the checkpoint is in place, so a crash in between leaves the old config with the
    old checkpoint (a resume removes the stray ``config.tmp``)."""

    run_dir: Path
    settings: dict[str, Any]
    changed: list[str]

    def save_with(self, save: Callable[[], None]) -> None:
        """Run ``save`` (the checkpoint's atomic write) with the new config beside it;
        :class:`SaveError` if the config cannot be written (nothing is changed then)."""
        config, tmp = self.run_dir / "config.yaml", self.run_dir / "config.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(dump_yaml(self.settings))
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise SaveError(f"cannot save {config}: {e.strerror or one_line(e)}") from None
        try:
            save()
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise
        try:
            os.replace(tmp, config)
            with open(self.run_dir / "resumes.log", "a", encoding="utf-8") as log:
                log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(self.changed)}\n")
        except OSError as e:
            raise SaveError(f"cannot save {config}: {e.strerror or one_line(e)}") from None


def parse_command_line(
    cls: type[T], argv: list[str] | None, description: str, prog: str | None = None
) -> tuple[argparse.Namespace, T, list[str]]:
    """``--config FILE``, ``--resume RUN_DIR`` and ``--override KEY=VALUE`` here; every
    other flag is a setting, parsed by tyro from the dataclass ``cls`` (its field
    docstrings make ``--help``) with the config and overrides as defaults. Returns the
    command line, the settings and, on a resume, the settings changed from the run's
    stored ``config.yaml`` (``key=value``); :class:`SetupError` for a bad one. ``prog``:
    the command's name in ``--help``."""
    import tyro

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config")
    pre.add_argument("--resume")
    pre.add_argument("--override", action="append", default=[])
    cli, rest = pre.parse_known_args(argv)
    if cli.resume and cli.config:
        raise SetupError("--resume continues a run with its own config.yaml; change settings with --override")
    config = cli.config
    if cli.resume:
        config = Path(cli.resume) / "config.yaml"
        if not config.is_file():
            what = (
                "no such run directory" if not config.parent.is_dir() else "not a run directory (it has no config.yaml)"
            )
            raise SetupError(f"--resume {config.parent}: {what}")
    base = load_settings(cls, config, cli.override)
    doc = (
        f"{description}\n\nAlso: --config NAME_OR_FILE (a shipped config: {', '.join(shipped_config_names())}; "
        "or a YAML file of settings), --resume RUN_DIR, --override KEY=VALUE."
    )
    settings = tyro.cli(cls, default=base, args=rest, prog=prog, description=doc, config=(tyro.conf.FlagConversionOff,))
    if not cli.resume:
        return cli, settings, []
    new, old = dataclasses.asdict(settings), dataclasses.asdict(load_settings(cls, config, []))  # type: ignore[call-overload]
    return cli, settings, [f"{k}={json.dumps(v)}" for k, v in new.items() if v != old[k]]
