"""The command: ``python -m agents.web`` / ``dehla-web`` (``--help`` lists its flags).

Binds the socket itself (so ``--port 0`` gets a free port and the real address can be
printed before the first request), prints ``http://HOST:PORT/`` and serves until
Ctrl-C or SIGTERM; games still open then are saved as abandoned records, each open
table page is told the server is stopping, and the command says so in one line.
Stopping takes a few seconds at most whatever the bots are doing: a thinking bot's
process is killed first, then the games are saved.

Every flag is checked (finite, in its range) before anything starts. The server
answers only to the loopback names and the ``--allow-host`` names (DNS rebinding);
listening beyond the loopback (``--host 0.0.0.0``) is announced with a warning,
since anyone who can reach the port can then play and fill the record folder.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from dehla_env.commands import typed_command

EXTRA_HINT = "agents.web needs the web extra: pip install dehla[web]"
#: seconds a stopping server waits for requests in flight (they end at once: bots are cancelled)
GRACEFUL_SECONDS = 3
#: the largest WebSocket message the server reads at all (the app refuses those over 4 KiB with a JSON error)
MAX_WS_FRAME = 64 * 1024


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) means this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bounded(parser: argparse.ArgumentParser, flag: str, value: float, lo: float, hi: float, lo_open: bool) -> None:
    if not math.isfinite(value) or value > hi or value < lo or (lo_open and value == lo):
        low = f"more than {lo:g}" if lo_open else f"at least {lo:g}"
        parser.error(f"{flag} must be {low} and at most {hi:g}, not {value}")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (port 0: a free one)."""
    family, kind, proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(128)  # connections wait in the backlog from now on, before uvicorn starts accepting
    return sock


def address_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=typed_command("agents.web"), description="Play Dehla Pakad and its family in the browser."
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument(
        "--record-dir",
        type=Path,
        default=None,
        help="folder for the R6 records of finished and abandoned games "
        "(default $DEHLA_RECORD_DIR, else ~/.local/share/dehla/games)",
    )
    spans = (  # ServerConfig field, default, least (excluded where open), most, open, what it sets
        ("bot_delay", 0.7, 0.0, 10.0, False, "seconds before each bot move"),
        ("idle_minutes", 60.0, 0.0, 10080.0, True, "save and drop games idle this long"),
        ("think_seconds", 10.0, 0.5, 600.0, False, "time a bot may take for one decision, then the hard bot moves"),
    )
    for name, default, lo, hi, _open, what in spans:
        parser.add_argument(
            _flag(name), type=float, default=default, help=f"{what} (default {default:g}, {lo:g}..{hi:g})"
        )
    caps = (  # ServerConfig field, default, most, what it counts
        ("max_games", 64, 1000, "games held at once, in all"),
        ("max_tables", 32, 1000, "tables with several people held at once"),
        ("tables_per_client", 4, 100, "open tables one address may create"),
        ("max_connections", 256, 10000, "open table connections in all"),
        ("connections_per_client", 16, 1000, "open table connections per address"),
    )
    for name, default, top, what in caps:
        parser.add_argument(_flag(name), type=int, default=default, help=f"{what} (default {default}, 1..{top})")
    parser.add_argument(
        "--policy-dir",
        type=Path,
        default=None,
        help="offer each DIR/*.pt and *.safetensors as policy:NAME besides the shipped ones (clients never name files)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name to serve besides 127.0.0.1, localhost and ::1 (repeat for more); "
        "needed when the server is reached by another name or address",
    )
    parser.add_argument(
        "--study",
        type=Path,
        default=None,
        metavar="FILE",
        help="run the study of this experiment file too (docs/study.md): prints the participant links",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port is 0..65535 (0 picks a free one), not {args.port}")
    for name, _default, lo, hi, lo_open, _what in spans:
        _bounded(parser, _flag(name), getattr(args, name), lo, hi, lo_open=lo_open)
    for name, _default, top, _what in caps:
        if not 1 <= getattr(args, name) <= top:
            parser.error(f"{_flag(name)} must be 1..{top}, not {getattr(args, name)}")
    if args.policy_dir is not None and not args.policy_dir.is_dir():
        parser.error(f"--policy-dir {args.policy_dir} is not a folder")
    for name in args.allow_host:
        if not name.strip() or any(c in name for c in "/ ,@"):
            parser.error(f"--allow-host takes a host name or address, not {name!r}")
    try:
        import uvicorn

        from agents.web.server import ServerConfig, create_app
    except ImportError as e:
        if getattr(e, "name", None) in ("starlette", "uvicorn", "anyio") or "starlette" in str(e):
            print(EXTRA_HINT, file=sys.stderr)
            return 1
        raise
    hosts = list(args.allow_host)
    if not is_loopback(args.host) and args.host not in ("0.0.0.0", "::", ""):
        hosts.append(args.host)  # the address it listens on is a name it answers to
    config = ServerConfig(
        record_dir=args.record_dir,
        **{name: getattr(args, name) for name, *_ in (*spans, *caps)},
        policy_dir=args.policy_dir,
        allowed_hosts=tuple(hosts),
    )
    try:
        config.records.mkdir(parents=True, exist_ok=True)  # fail now, not when the first game ends
    except OSError as e:
        parser.error(f"cannot use {config.records} for records: {e}")
    study = None
    if args.study is not None:
        from agents.web.experiment import ExperimentError
        from agents.web.study import open_study

        try:
            study = open_study(args.study, config.records, args.policy_dir)
        except ExperimentError as e:
            parser.error(str(e))
    try:
        sock = bind(args.host, args.port)
    except OSError as e:
        parser.error(f"cannot listen on {args.host}:{args.port}: {e}")
    print(f"Dehla in the browser: {address_of(sock)}  (records in {config.records}; Ctrl-C stops)", flush=True)
    if not is_loopback(args.host):
        names = ", ".join(["127.0.0.1", "localhost", "::1", *hosts])
        print(
            f"WARNING: listening on {args.host}, beyond this machine: anyone who can reach port "
            f"{sock.getsockname()[1]} can start games and fill {config.records} with records. "
            f"Only requests for these host names are served: {names}"
            + ("" if args.allow_host else " (add the name people will use with --allow-host NAME)"),
            file=sys.stderr,
            flush=True,
        )
    app = create_app(config)
    if study is not None:
        from agents.web.study_server import attach_study

        print("\n".join(attach_study(app, study, address_of(sock))), flush=True)
    uv_config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
        ws_max_size=MAX_WS_FRAME,  # a table's messages are a few dozen bytes; the server refuses big ones early
    )
    server = _stopping_server(uvicorn, app)(uv_config)
    signal.signal(signal.SIGTERM, _stop)  # uvicorn raises the signal again once it has stopped
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stopped) as e:
        print(f"Stopped; open games were saved in {config.records}.", flush=True)
        return 128 + (e.signum if isinstance(e, _Stopped) else signal.SIGINT)
    return 0


class _Stopped(Exception):
    """SIGTERM, once the server has stopped (as KeyboardInterrupt is SIGINT)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum


def _stop(signum: int, _frame: Any) -> None:
    raise _Stopped(signum)


def _stopping_server(uvicorn: Any, app: Any) -> Any:
    """A ``uvicorn.Server`` whose shutdown first stops every thinking bot, so requests in
    flight end at once and the games are saved, instead of waiting out a long search."""

    class StoppingServer(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            app.state.store.cancel_all()
            app.state.thinker.kill_all()
            await app.state.tables.close_all()  # open pages hear why, before their sockets close
            await super().shutdown(sockets)

    return StoppingServer


if __name__ == "__main__":
    raise SystemExit(main())
