"""The bots a web client may name, and how the server runs them so that they can be stopped.

**The catalogue.** A client names bots from the server's catalogue, never a file:
the parameterless agents (``easy`` ... ``hard``), ``search:...`` with any parameters
within the registry's bounds (:mod:`agents.registry`), and ``policy:NAME`` for a
shipped policy or one the operator offered at start-up (``--policy-dir DIR``: each
``DIR/*.pt`` or ``DIR/*.safetensors`` is ``policy:STEM``). The same holds for specs named inside a search
(``prior``, ``belief``, ``playout``, ``opp``). A refused name gets the same answer
whatever exists on the server's disk, because the catalogue is a table made at
start-up and a client's text is never looked up as a path.

**Thinking.** A bot whose spec involves a ``search`` thinks in a child process (one
per decision, forked from a preloaded server so it starts in milliseconds), under a
per-decision time limit; a leave, an eviction, a timeout or the server's shutdown
kills it, which stops the CPU work at once (the solver has no cancellation point of
its own), and the kernel's CPU limit on the child is a backstop if the server itself
cannot. At most ``slots`` children think at once; the others wait their turn (and a
leave cancels the wait too). A decision that runs out of time is played by the hard
bot, so the game goes on. Each decision's seed is derived from the game's seed, the
seat and the decision's number, so a seeded game plays the same whether or not the
children were killed in between. The other bots (a few milliseconds a move, bounded)
play in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.bots.heuristic import HardAgent
from agents.playing.deals import seed_of
from agents.registry import AGENTS, make_agent, parse_spec, policy_path, register_policies, shipped_policies
from dehla_env.rules import Rules, make_rules
from dehla_env.view import PlayerView

log = logging.getLogger("agents.web")

#: the default per-decision time limit of a thinking bot, in seconds
THINK_SECONDS = 10.0
#: polling period of a thinking child's answer and of the cancel flag, in seconds
POLL_SECONDS = 0.02


class BotCancelled(Exception):
    """The decision was cancelled (the game was left or evicted, or the server stops)."""


class BotFailed(Exception):
    """The bot raised or its process died; the text says how."""


def policy_files(directory: Path | None) -> dict[str, Path]:
    """``{NAME: file}`` for the shipped policies and the ``*.pt`` and ``*.safetensors``
    regular files of ``directory`` (the operator's); a shipped name is never shadowed."""
    found = {name: policy_path(name) for name in shipped_policies()}
    if directory is not None:
        for path in sorted([*directory.glob("*.pt"), *directory.glob("*.safetensors")]):
            if path.is_file() and path.stem not in found and "," not in path.stem and "=" not in path.stem:
                found[path.stem] = path.resolve()
    return found


@dataclass
class Catalogue:
    """The bots this server offers: see the module docstring."""

    policies: dict[str, Path] = field(default_factory=lambda: policy_files(None))

    def offered_policies(self) -> list[str]:
        return [f"policy:{name}" for name in self.policies]

    def check(self, spec: str) -> None:
        """Refuse (``ValueError``, one line) a spec that is out of the registry's bounds
        or names anything but the catalogue's policies, at any depth."""
        entry, params = parse_spec(spec)
        if entry is AGENTS["policy"]:
            name = params["path"]
            if name not in self.policies:
                shown = name if len(name) <= 40 else name[:40] + "..."
                offered = ", ".join(self.offered_policies()) or "none"
                raise ValueError(f"policy:{shown} is not offered by this server; offered: {offered}")
        for inner in _inner_specs(entry, params):
            self.check(inner)

    def scrub(self, text: str) -> str:
        """``text`` with each policy file's path replaced by its ``policy:NAME``, so an
        error about a catalogue policy never shows where the server keeps it."""
        for name, path in self.policies.items():
            text = text.replace(str(path), f"policy:{name}")
        return text


def _inner_specs(entry: Any, params: dict[str, Any]) -> list[str]:
    """The agent specs named inside a parsed spec (a search's ``prior``, ``opp``, ...)."""
    inner = [params[p.name] for p in entry.params if p.spec and isinstance(params[p.name], str)]
    return [value for value in inner if value.partition(":")[0] in AGENTS]


def thinks(spec: str) -> bool:
    """Whether a spec involves a search anywhere (those bots think in a child process)."""
    entry, params = parse_spec(spec)
    return entry.thinks or any(thinks(inner) for inner in _inner_specs(entry, params))


def decision_seed(seed: int, seat: int, decision: int) -> int:
    """The seed of one bot decision: reproducible per game, seat and decision number."""
    return seed_of(seed, 1000 + seat, decision)


def _decide(
    conn: Connection,
    spec: str,
    rules_name: str,
    options: dict[str, Any],
    seed: int,
    view: PlayerView,
    policies: dict[str, Path],
    cpu_seconds: int,
) -> None:
    """Runs in the child: build the bot, decide, send ``("ok", action)`` or ``("error", text)``."""
    try:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))  # the kernel's backstop
        except (ImportError, ValueError, OSError):
            pass
        register_policies(policies)
        agent = make_agent(spec, make_rules(rules_name, options), seed)
        conn.send(("ok", int(agent.act(view))))
    except BaseException as e:  # noqa: BLE001 - whatever happened, the server gets one line
        with contextlib.suppress(OSError):
            conn.send(("error", f"{type(e).__name__}: {str(e)[:300]}"))
    finally:
        conn.close()


def _context() -> Any:
    """Forked from a preloaded server where that exists (fast, and safe from a threaded
    parent); spawned elsewhere."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        preload = ["agents.web.bots", "agents.search.pimc", "agents.nets.agent"]
        try:
            import importlib.util

            if importlib.util.find_spec("torch") is not None:
                preload.append("agents.nets.policy")  # a search's prior or playout network loads fast then
        except (ImportError, ValueError):
            pass
        ctx.set_forkserver_preload(preload)
        return ctx
    return multiprocessing.get_context("spawn")


class Thinker:
    """Runs bot decisions (see the module docstring) and stops them on demand."""

    def __init__(self, policies: Mapping[str, Path], seconds: float = THINK_SECONDS, slots: int | None = None) -> None:
        self.policies = dict(policies)
        self.seconds = seconds
        self.slots = asyncio.Semaphore(slots or max(1, min(4, os.cpu_count() or 1)))
        self.children: set[Any] = set()
        self._ctx: Any = None

    async def decide(
        self,
        agent: Agent,
        spec: str,
        rules: Rules,
        seed: int,
        view: PlayerView,
        *,
        cancel: asyncio.Event,
        reseed: bool = True,
    ) -> tuple[int, bool]:
        """The bot's action and whether it ran out of time (then the hard bot's move).

        A bot that does not think plays in a worker thread, seeded with ``seed`` first
        unless ``reseed`` is False (it keeps the seeding it has). Raises
        :class:`BotCancelled` once ``cancel`` is set, :class:`BotFailed` if the bot fails."""
        import anyio.to_thread

        if not thinks(spec):
            if reseed:
                agent.seed(seed)
            try:
                return int(await anyio.to_thread.run_sync(agent.act, view)), False
            except Exception as e:  # noqa: BLE001 - a bot's failure is reported, not raised as a 500 trace
                raise BotFailed(f"{type(e).__name__}: {str(e)[:300]}") from None
        await self._acquire(cancel)
        try:
            return await self._think(spec, rules, seed, view, cancel)
        finally:
            self.slots.release()

    async def _acquire(self, cancel: asyncio.Event) -> None:
        acquire = asyncio.ensure_future(self.slots.acquire())
        stop = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait({acquire, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not acquire.done():
            acquire.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await acquire
        if cancel.is_set():
            if acquire.done() and not acquire.cancelled():
                self.slots.release()
            raise BotCancelled

    async def _think(
        self, spec: str, rules: Rules, seed: int, view: PlayerView, cancel: asyncio.Event
    ) -> tuple[int, bool]:
        import anyio.to_thread

        if self._ctx is None:
            self._ctx = _context()
        parent, child = self._ctx.Pipe(duplex=False)
        cpu = int(self.seconds) + 5
        proc = self._ctx.Process(
            target=_decide,
            args=(child, spec, rules.name, rules.option_dict(), seed, view, self.policies, cpu),
            daemon=True,
        )
        self.children.add(proc)
        try:
            await anyio.to_thread.run_sync(proc.start)  # the first start also starts the fork server
            child.close()
            deadline = time.monotonic() + self.seconds
            while not parent.poll():
                if cancel.is_set():
                    raise BotCancelled
                if time.monotonic() >= deadline:
                    log.warning("a %s decision ran out of its %g s; the hard bot's move is played", spec, self.seconds)
                    return HardAgent(seed).act(view), True
                await asyncio.sleep(POLL_SECONDS)
            try:
                kind, value = parent.recv()
            except (EOFError, OSError):
                if cancel.is_set():
                    raise BotCancelled from None
                raise BotFailed(f"its process ended without an answer (exit code {proc.exitcode})") from None
            if kind != "ok":
                raise BotFailed(str(value))
            return int(value), False
        finally:
            parent.close()
            self._kill(proc)

    def _kill(self, proc: Any) -> None:
        try:
            if proc.is_alive():
                proc.kill()
            proc.join(timeout=1.0)
        except (ValueError, AssertionError, OSError):  # never started, or already reaped
            pass
        self.children.discard(proc)

    def kill_all(self) -> None:
        """Stop every thinking child now (the server stops)."""
        for proc in list(self.children):
            self._kill(proc)


__all__ = [
    "THINK_SECONDS",
    "BotCancelled",
    "BotFailed",
    "Catalogue",
    "Thinker",
    "decision_seed",
    "policy_files",
    "thinks",
]
