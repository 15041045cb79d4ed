"""The command-line pieces of every command that plays duels (``dehla-arena``,
``dehla-bench``): one-line errors instead of argparse's usage dump, bounded counts,
the worker count, the Ray backend, and the exit statuses of Ctrl-C and SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import NoReturn

from agents.distributed.cluster import BACKENDS, RayCluster
from agents.distributed.cluster import connect as cluster_for
from agents.playing.duel import MODES
from agents.playing.pool import Terminated, sigterm_stops

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM


class BadInput(Exception):
    """An argument the command cannot run with; the message is the whole explanation."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """argparse prints the usage and the message; one line is easier to read, and
        ``--help`` is there for the usage."""
        raise BadInput(f"{message} (see --help)")


def at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for integers of at least ``minimum`` and, with ``maximum``,
    at most that: a count bounds the memory and time a command may take (a deal range
    or a resample count is built before the first deal is played)."""

    def parse(text: str) -> int:
        shown = text if len(text) <= 30 else text[:30] + "..."
        try:
            value = int(text)
        except ValueError:  # also an integer of over 4300 digits
            raise argparse.ArgumentTypeError(f"an integer, not {shown!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            allowed = f"at least {minimum}" if maximum is None else f"{minimum}..{maximum:,}".replace(",", "_")
            raise argparse.ArgumentTypeError(f"must be {allowed}, not {shown}")
        return value

    return parse


def add_run_arguments(parser: argparse.ArgumentParser, plot: str, json: str) -> None:
    """The arguments every duel-playing command shares: where and how its games run and
    how it reports (``plot`` and ``json``: what ``--plot`` draws and ``--json`` prints)."""
    add = parser.add_argument
    add("--mode", choices=MODES, default="hand", help="a game is one hand or a whole match (default %(default)s)")
    add("--workers", type=at_least(1), default=None, help="processes (default: all cores)")
    add("--backend", choices=BACKENDS, default="local", help="local processes, or Ray tasks (the same results)")
    add("--address", metavar="HOST:PORT", help="--backend ray: a running cluster to join (default: a local Ray)")
    add("--plot", metavar="FILE.png", help=plot)
    add("--json", action="store_true", help=json)
    add("--quiet", action="store_true", help="no progress display")


def sayer(prog: str) -> Callable[[str], None]:
    """The command's one-line messages on stderr, its name first, whitespace collapsed."""
    return lambda line: print(f"{prog}: {' '.join(line.split())}", file=sys.stderr)


def connect(args: argparse.Namespace, workers: int | None) -> RayCluster | None:
    """The Ray cluster that ``--backend ray`` asks for (``--workers``: the CPUs of a
    local one), or ``None``."""
    return cluster_for(args.backend, args.address, workers)


def split_agents(text: str) -> list[str]:
    """The specs of ``--agents``, separated by commas. A piece of the form ``key=value``
    continues the spec before it (agent names hold no ``=``), so ``search:k=16,depth=5``
    and ``policy:PATH,sample=1`` stay whole."""
    if not text.strip():
        raise BadInput(f"--agents needs at least two agent specs, not {text!r}")
    specs: list[str] = []
    for raw in text.split(","):
        piece = raw.strip()
        if not piece:
            raise BadInput(f"--agents: an empty agent spec in {text!r}")
        if specs and "=" in piece and ":" not in piece.partition("=")[0]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    if len(specs) < 2:
        raise BadInput(f"--agents needs at least two agent specs, not {text!r}")
    return specs


def capped_workers(requested: int | None, say: Callable[[str], None]) -> int | None:
    """``--workers``, capped at the CPU count with a note: more processes than cores
    only add start-up time and memory (the result is the same with any number)."""
    cpus = os.cpu_count() or 1
    if requested is not None and requested > cpus:
        say(f"note: --workers {requested} is more than the {cpus} CPUs here; using {cpus}")
        return cpus
    return requested


def stoppable(run: Callable[[], int], say: Callable[[str], None]) -> int:
    """``run()``, stopped cleanly by Ctrl-C (status 130) or SIGTERM (143): either
    stops the worker processes before the command exits (:func:`agents.playing.pool.sigterm_stops`);
    ``say`` writes the command's one line."""
    try:
        with sigterm_stops():
            return run()
    except Terminated:
        say("terminated")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        say("interrupted")
        return EXIT_INTERRUPTED
