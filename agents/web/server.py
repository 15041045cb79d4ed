"""The ASGI app: a small JSON API over :class:`WebGame` plus the static page.

Routes (every body and answer is JSON; an error answer is ``{"error": text, ...}``):

=======================================  ==========================================
``GET  /``                               the page (``static/index.html``)
``GET  /api/meta``                       rulesets, their options, agent suggestions
``GET  /api/games``                      the games held now
``POST /api/games``                      start one: ``{rules, options, seat, partner,
                                         opponents, seed?, bot_delay?}`` -> table (201)
``GET  /api/games/{id}``                 the person's table (see :mod:`.table`)
``POST /api/games/{id}/move``            ``{move: "TS", seat?, version?}`` -> table
``POST /api/games/{id}/advance``         one bot move or R1.4 draw, after the delay
``POST /api/games/{id}/deal``            deal the next hand once one is over
``POST /api/games/{id}/leave``           save the record (abandoned) and drop it
=======================================  ==========================================

Refusals change nothing and say why: 400 for a malformed body or move text, 409 for a
move the rules or the turn refuse (the engine's :class:`IllegalMoveError` text, with
``move``, ``seat`` and ``rule``) or a stale ``version``, 404 for a game id the server
does not hold. Each game has its own lock, so several games run at once and two
requests never interleave inside one game; bots think in a worker thread so a slow
``search`` bot does not stall the other games.

The page drives the bots: while a bot is to act it posts ``advance`` and the server
waits ``bot_delay`` seconds (twice that after a completed trick, so the four cards
can be read) before the bot moves. Nothing runs in the background, so a closed tab
costs nothing; games idle for ``idle_minutes`` are saved as abandoned and dropped,
and so is every game still held when the server stops.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dehla_env.errors import IllegalMoveError
from dehla_env.rules import PRESETS, RulesError, make_rules

from .game import SetupError, WebGame
from .meta import meta
from .records import default_record_dir, save_record
from .table import table_state

log = logging.getLogger("agents.web")
STATIC_DIR = Path(str(resources.files("agents.web") / "static"))
MAX_BOT_DELAY = 10.0


@dataclass
class ServerConfig:
    """Settings of one server (``python -m agents.web --help`` sets them)."""

    record_dir: Path | None = None  # where records go; None: default_record_dir()
    bot_delay: float = 0.7  # seconds before each bot move (doubled after a completed trick)
    idle_minutes: float = 60.0  # a game untouched this long is saved as abandoned and dropped
    max_games: int = 64  # beyond this the longest-idle game is saved and dropped

    @property
    def records(self) -> Path:
        return self.record_dir if self.record_dir is not None else default_record_dir()


class ApiError(Exception):
    """A refused request: HTTP status and the JSON fields of the answer."""

    def __init__(self, status: int, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.status = status
        self.fields = {"error": message, **fields}


class GameStore:
    """The games held by one server, each with its own lock."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.games: dict[str, WebGame] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    def get(self, game_id: str) -> tuple[WebGame, asyncio.Lock]:
        game = self.games.get(game_id)
        if game is None:
            raise ApiError(
                404,
                f"no game {game_id!r} here: it was left, expired or never existed (start a new game)",
                game=game_id,
            )
        return game, self.locks[game_id]

    def add(self, game: WebGame) -> None:
        self.sweep()
        while len(self.games) >= self.config.max_games:
            oldest = min(self.games.values(), key=lambda g: g.touched)
            self.drop(oldest, "abandoned")
        self.games[game.id] = game
        self.locks[game.id] = asyncio.Lock()

    def after_change(self, game: WebGame) -> None:
        """Save the record as soon as the match is over (the game stays viewable)."""
        if game.match.is_terminal() and game.ended is None:
            self.save(game, "finished")

    def save(self, game: WebGame, result: str) -> None:
        """Write the record; a full disk or a bad folder is logged, never the player's problem."""
        try:
            save_record(game, self.config.records, result)
        except OSError as e:
            game.ended = result  # do not try again on every request
            log.error("could not save the record of %s in %s: %s", game.id, self.config.records, e)

    def drop(self, game: WebGame, result: str) -> str | None:
        """Forget a game, saving its record first unless it was saved already."""
        if game.ended is None:
            self.save(game, result)
        self.games.pop(game.id, None)
        self.locks.pop(game.id, None)
        return game.saved_to

    def sweep(self) -> None:
        cutoff = time.time() - 60.0 * self.config.idle_minutes
        for game in [g for g in self.games.values() if g.touched < cutoff]:
            self.drop(game, "abandoned")

    def close(self) -> None:
        for game in list(self.games.values()):
            self.drop(game, "abandoned")


def new_game_id() -> str:
    """Sortable by start time and unguessable enough for a local table."""
    return f"web-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except ValueError as e:
        raise ApiError(400, f"malformed body: not JSON ({e})") from None
    if not isinstance(body, dict):
        raise ApiError(400, "malformed body: a JSON object is expected")
    return body


def _int_or_none(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"malformed body: {key!r} must be an integer, not {value!r}")
    return value


def _text(body: dict[str, Any], key: str, default: str) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ApiError(400, f"malformed body: {key!r} must be a non-empty text, not {value!r}")
    return value.strip()


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The app for ``config`` (defaults: see :class:`ServerConfig`)."""
    config = config or ServerConfig()
    store = GameStore(config)

    def answer(game: WebGame, status: int = 200, **extra: Any) -> JSONResponse:
        return JSONResponse({**table_state(game), **extra}, status_code=status)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    async def get_meta(request: Request) -> Response:
        return JSONResponse({**meta(), "bot_delay": config.bot_delay, "record_dir": str(config.records)})

    async def list_games(request: Request) -> Response:
        store.sweep()
        games = [
            {"id": g.id, "rules": str(g.rules), "status": g.status(), "hands": g.match.hands_dealt, "seat": g.human}
            for g in store.games.values()
        ]
        return JSONResponse({"games": games})

    async def create(request: Request) -> Response:
        body = await _body(request)
        name = _text(body, "rules", "dehla")
        if name not in PRESETS:
            raise ApiError(400, f"unknown ruleset {name!r}; known: {', '.join(PRESETS)}")
        options = body.get("options")
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise ApiError(400, "malformed body: 'options' must be an object")
        delay = body.get("bot_delay", config.bot_delay)
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= MAX_BOT_DELAY:
            raise ApiError(400, f"malformed body: 'bot_delay' must be 0..{MAX_BOT_DELAY} seconds, not {delay!r}")
        seat = _int_or_none(body, "seat")
        seed = _int_or_none(body, "seed")
        partner = _text(body, "partner", "hard")
        opponents = _text(body, "opponents", "medium")
        try:
            rules = make_rules(name, options)
            # building bots may import torch or load a checkpoint: off the event loop
            game = await anyio.to_thread.run_sync(
                lambda: WebGame(
                    new_game_id(), rules, 0 if seat is None else seat, partner, opponents, seed, float(delay)
                )
            )
        except (RulesError, SetupError) as e:
            raise ApiError(400, str(e)) from None
        store.add(game)
        return answer(game, 201)

    async def get_game(request: Request) -> Response:
        game, _lock = store.get(request.path_params["game_id"])
        return answer(game)

    async def move(request: Request) -> Response:
        game, lock = store.get(request.path_params["game_id"])
        body = await _body(request)
        if "move" not in body:
            raise ApiError(400, 'malformed body: {"move": TEXT} expected, e.g. {"move": "TS"}')
        seat = _int_or_none(body, "seat")
        version = _int_or_none(body, "version")
        async with lock:
            if version is not None and version != game.version:
                raise ApiError(
                    409,
                    f"stale table: version {version} was sent, the game is at {game.version}; nothing was changed",
                    move=body["move"],
                    seat=game.human,
                    version=game.version,
                    stale=True,
                )
            try:
                game.play(body["move"], seat)
            except IllegalMoveError as e:
                status = 400 if e.rule == "R6" else 409
                raise ApiError(status, str(e), move=e.move, seat=e.seat, rule=e.rule, version=game.version) from None
            store.after_change(game)
            return answer(game)

    async def advance(request: Request) -> Response:
        game, lock = store.get(request.path_params["game_id"])
        body = await _body(request)
        version = _int_or_none(body, "version")
        if (version is not None and version != game.version) or game.status() != "bot":
            return answer(game, advanced=False)
        view = game.view()
        delay = game.bot_delay * (2 if view.history and not view.trick and view.to_act >= 0 else 1)
        if delay:
            await asyncio.sleep(delay)
        async with lock:
            if (
                game.id not in store.games
                or game.status() != "bot"
                or (version is not None and version != game.version)
            ):
                return answer(game, advanced=False)
            if not game.draw():
                turn = game.bot_turn()
                assert turn is not None
                seat, agent, bot_view = turn
                try:
                    action = await anyio.to_thread.run_sync(agent.act, bot_view)
                    game.apply_bot(seat, action)
                except Exception as e:  # a bot's failure is the server's, not the person's
                    raise ApiError(500, f"the bot at seat {seat} ({game.specs[seat]}) failed: {e}") from None
            store.after_change(game)
            return answer(game, advanced=True)

    async def deal(request: Request) -> Response:
        game, lock = store.get(request.path_params["game_id"])
        async with lock:
            try:
                game.deal_next()
            except IllegalMoveError as e:
                raise ApiError(409, str(e), move="deal", seat=None, rule=e.rule) from None
            return answer(game)

    async def leave(request: Request) -> Response:
        game, lock = store.get(request.path_params["game_id"])
        async with lock:
            path = store.drop(game, "abandoned")
        return JSONResponse({"id": game.id, "record": path, "result": game.ended})

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return JSONResponse(exc.fields, status_code=exc.status)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        store.close()  # the server stops: every game still held is saved

    routes = [
        Route("/", index),
        Route("/api/meta", get_meta),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{game_id}", get_game, methods=["GET"]),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/advance", advance, methods=["POST"]),
        Route("/api/games/{game_id}/deal", deal, methods=["POST"]),
        Route("/api/games/{game_id}/leave", leave, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={ApiError: on_api_error}, lifespan=lifespan)
    app.state.store = store
    app.state.config = config
    return app


__all__ = ["ApiError", "GameStore", "ServerConfig", "create_app", "new_game_id"]
