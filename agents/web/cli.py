"""The command: ``python -m agents.web`` / ``dehla-web``.

    python -m agents.web [--host 127.0.0.1] [--port 8000] [--record-dir DIR]
                         [--bot-delay 0.7] [--idle-minutes 60]

Binds the socket itself (so ``--port 0`` gets a free port and the real address can be
printed before the first request), prints ``http://HOST:PORT/`` and serves until
Ctrl-C; games still open then are saved as abandoned records.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

EXTRA_HINT = "agents.web needs the web extra: pip install dehla[web]"


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
        prog="python -m agents.web", description="Play Dehla Pakad and its family in the browser."
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
    parser.add_argument("--bot-delay", type=float, default=0.7, help="seconds before each bot move (default 0.7)")
    parser.add_argument(
        "--idle-minutes", type=float, default=60.0, help="save and drop games idle this long (default 60)"
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port is 0..65535 (0 picks a free one), not {args.port}")
    if args.bot_delay < 0:
        parser.error("--bot-delay must be at least 0")
    try:
        import uvicorn

        from .server import ServerConfig, create_app
    except ImportError as e:
        if getattr(e, "name", None) in ("starlette", "uvicorn", "anyio") or "starlette" in str(e):
            print(EXTRA_HINT, file=sys.stderr)
            return 1
        raise
    config = ServerConfig(record_dir=args.record_dir, bot_delay=args.bot_delay, idle_minutes=args.idle_minutes)
    try:
        config.records.mkdir(parents=True, exist_ok=True)  # fail now, not when the first game ends
    except OSError as e:
        parser.error(f"cannot use {config.records} for records: {e}")
    try:
        sock = bind(args.host, args.port)
    except OSError as e:
        parser.error(f"cannot listen on {args.host}:{args.port}: {e}")
    print(f"Dehla in the browser: {address_of(sock)}  (records in {config.records}; Ctrl-C stops)", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning", lifespan="on"))
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
