"""The ASGI app: a small JSON API over :class:`WebGame` plus the static page.

Routes (every body and answer is JSON; an error answer is ``{"error": text, ...}``):

=======================================  ==========================================
``GET  /``                               the page (``static/index.html``)
``GET  /api/meta``                       rulesets, their options, agent suggestions
``GET  /rules``                          How to play: a summary and the rule book (HTML)
``GET  /api/games``                      the games this browser started
``POST /api/games``                      start one: ``{rules, options, seat, partner?,
                                         opponents?, seed?, bot_delay?}`` -> table (201)
``GET  /api/games/{id}``                 the person's table (see :mod:`.table`)
``POST /api/games/{id}/move``            ``{move: "TS", seat?, version?}`` -> table
``POST /api/games/{id}/advance``         one bot move or R1.4 draw, after the delay
``POST /api/games/{id}/deal``            deal the next hand once one is over
``POST /api/games/{id}/leave``           save the record (abandoned) and drop it
``GET  /tables``, ``/tables/{id}``       a table with several people: the host's form,
                                         a table's page (see :mod:`.tables`)
``POST /api/tables``                     create one: ``{rules, options, seats,
                                         bot_delay?}`` -> its links (201)
``WS   /ws/tables/{id}``                 a table's WebSocket, one view per link
=======================================  ==========================================

Refusals change nothing and say why: 400 for a malformed body or move text, 409 for a
move the rules or the turn refuse (the engine's :class:`IllegalMoveError` text, with
``move``, ``seat`` and ``rule``) or a stale ``version``, 404 for a game id the server
does not hold, or a game another browser started: each game belongs to the secret in
its creator's ``dehla_owner`` cookie (HttpOnly, SameSite=Strict; set by the first
``POST /api/games``), and nobody else may see, move in or end it. Each game has its
own lock, so several games run at once and two requests never interleave inside one
game. A ``search`` bot thinks in a child process that a leave, an eviction or the
server's shutdown kills at once (:mod:`.bots`).

Limits (every refusal is a one-line JSON error with a 4xx status, never a 500): bots
come from the server's catalogue, never a path on its disk (:mod:`.bots`); the body,
rate, Host and Origin checks are :mod:`.guard`'s; a move is at most 32 characters, a
seed 0..2**63-1; ``games_per_client`` games per client address (starting one more
saves and drops that client's longest-idle game, never another client's) and
``max_games`` in all (503 beyond).

The page drives the bots: while a bot is to act it posts ``advance`` and the server
waits ``bot_delay`` seconds (twice that after a completed trick, so the four cards
can be read) before the bot moves. Nothing runs in the background, so a closed tab
costs nothing; games idle for ``idle_minutes`` are saved as abandoned and dropped,
and so is every game still held when the server stops.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.registry import default_bot, register_policies
from agents.web import rulebook
from agents.web.bots import THINK_SECONDS, BotCancelled, BotFailed, Catalogue, Thinker, decision_seed, policy_files
from agents.web.game import SetupError, WebGame
from agents.web.guard import ApiError, Guard, int_field, json_body, play_refusing, rules_field, seconds_field, shown
from agents.web.meta import agent_help, meta
from agents.web.records import default_record_dir, keep_record
from agents.web.table import table_state
from agents.web.tables import TableLimits, TableStore, table_routes
from dehla_env.errors import IllegalMoveError
from dehla_env.rules import RulesError

log = logging.getLogger("agents.web")
STATIC_DIR = Path(str(resources.files("agents.web") / "static"))
MAX_TEXT = 400  # the longest text field (an agent spec: agents.registry.MAX_SPEC_LENGTH)
MAX_MOVE = 32  # the longest move text ("bid:13H", "trump:S", ...)
OWNER_COOKIE = "dehla_owner"  # the secret that makes a browser a game's owner


@dataclass
class ServerConfig(TableLimits):
    """Settings of one server (``python -m agents.web --help`` sets them), the tables' caps included."""

    record_dir: Path | None = None  # where records go; None: default_record_dir()
    max_games: int = 64  # games held in all; beyond it a new game is refused (503)
    games_per_client: int = 8  # beyond it the client's own longest-idle game is saved and dropped
    think_seconds: float = THINK_SECONDS  # per bot decision, then the hard bot's move is played
    think_slots: int | None = None  # bots thinking at once (None: the CPU count, at most 4)
    policy_dir: Path | None = None  # its *.pt files are offered as policy:NAME besides the shipped ones
    allowed_hosts: tuple[str, ...] = ()  # Host names served besides the loopback ones
    requests_per_second: float | None = 20.0  # per client address, all /api/ requests (None: no limit)
    request_burst: int = 60
    creates_per_minute: float | None = 20.0  # per client address (None: no limit)
    create_burst: int = 10

    @property
    def records(self) -> Path:
        return self.record_dir if self.record_dir is not None else default_record_dir()


class GameStore:
    """The games held by one server, each with its own lock."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.games: dict[str, WebGame] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.cancels: dict[str, asyncio.Event] = {}  # set: the game's bot stops thinking
        self.owners: dict[str, str] = {}  # game id -> the client address that started it
        self.keys: dict[str, str] = {}  # game id -> its creator's secret (the owner cookie)

    def get(self, game_id: str, key: str) -> tuple[WebGame, asyncio.Lock]:
        """The game and its lock, for its creator only: another key gets the same 404 as a missing game."""
        game = self.games.get(game_id)
        if game is None or not self.owns(game_id, key):
            raise ApiError(
                404,
                f"no game {game_id!r} here: it was left, expired or never existed (start a new game)",
                game=game_id,
            )
        return game, self.locks[game_id]

    def room_for(self, client: str) -> None:
        """Make room for one more game of ``client``: its own longest-idle games go
        beyond ``games_per_client``; a full server refuses (503) rather than evict
        another client's game."""
        self.sweep()
        mine = [self.games[i] for i, owner in self.owners.items() if owner == client and i in self.games]
        while mine and len(mine) >= self.config.games_per_client:
            oldest = min(mine, key=lambda g: g.touched)
            mine.remove(oldest)
            self.drop(oldest, "abandoned")
        if len(self.games) >= self.config.max_games:
            raise ApiError(503, f"the server holds its most games ({self.config.max_games}); try again later")

    def owns(self, game_id: str, key: str) -> bool:
        return hmac.compare_digest(self.keys.get(game_id, "").encode(), key.encode())

    def add(self, game: WebGame, client: str = "", key: str = "") -> None:
        self.room_for(client)
        self.keys[game.id] = key
        self.games[game.id] = game
        self.locks[game.id] = asyncio.Lock()
        self.cancels[game.id] = asyncio.Event()
        self.owners[game.id] = client

    def holds(self, game: WebGame) -> bool:
        """Whether ``game`` is still held and not saved as abandoned (then no move may change it)."""
        return self.games.get(game.id) is game and game.ended != "abandoned"

    def cancel(self, game: WebGame) -> None:
        """Stop the game's thinking bot (the decision is dropped; nothing is applied)."""
        event = self.cancels.get(game.id)
        if event is not None:
            event.set()

    def after_change(self, game: WebGame) -> None:
        """Save the record as soon as the match is over (the game stays viewable)."""
        if game.match.is_terminal() and game.ended is None:
            keep_record(game, self.config.records, "finished")

    def drop(self, game: WebGame, result: str) -> str | None:
        """Forget a game, saving its record first unless it was saved already."""
        self.cancel(game)  # a bot thinking for it stops; its move is never applied after the record
        if game.ended is None:
            keep_record(game, self.config.records, result)
        self.games.pop(game.id, None)
        self.locks.pop(game.id, None)
        self.cancels.pop(game.id, None)
        self.owners.pop(game.id, None)
        self.keys.pop(game.id, None)
        return game.saved_to

    def sweep(self) -> None:
        cutoff = time.time() - 60.0 * self.config.idle_minutes
        for game in [g for g in self.games.values() if g.touched < cutoff]:
            self.drop(game, "abandoned")

    def cancel_all(self) -> None:
        """Stop every thinking bot (the server stops); the games stay held to be saved."""
        for event in self.cancels.values():
            event.set()

    def close(self) -> None:
        for game in list(self.games.values()):
            self.drop(game, "abandoned")


def owner_key(request: Request) -> str:
    """The request's owner secret (the ``dehla_owner`` cookie), or "" if it has none that could be one."""
    key = request.cookies.get(OWNER_COOKIE, "")
    return key if 16 <= len(key) <= 64 and key.isascii() else ""


def new_game_id() -> str:
    """Sortable by start time and unguessable enough for a local table."""
    return f"web-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def move_fields(body: dict[str, Any]) -> tuple[int | None, int | None]:
    """Check a move request's body (``{"move": TEXT, "seat"?, "version"?}``: the move's
    text present and short) and return its ``seat`` and ``version``; :class:`ApiError`
    (400) otherwise. The game page and the study's page send the same body."""
    if "move" not in body:
        raise ApiError(400, 'malformed body: {"move": TEXT} expected, e.g. {"move": "TS"}')
    if isinstance(body["move"], str) and len(body["move"]) > MAX_MOVE:
        raise ApiError(400, f"malformed move: a move is at most {MAX_MOVE} characters (TS, trump:S, bid:8H)")
    return int_field(body, "seat"), int_field(body, "version")


def _text(body: dict[str, Any], key: str, default: str) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ApiError(400, f"malformed body: {key!r} must be a non-empty text, not {shown(value)}")
    if len(value) > MAX_TEXT:
        raise ApiError(400, f"malformed body: {key!r} is at most {MAX_TEXT} characters")
    return value.strip()


def static_page(name: str) -> Callable[[Request], Awaitable[Response]]:
    """A route answering with the page ``static/NAME`` (revalidated, so an upgrade shows at once)."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC_DIR / name, headers={"Cache-Control": "no-cache"})

    return page


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The app for ``config`` (defaults: see :class:`ServerConfig`)."""
    config = config or ServerConfig()
    store = GameStore(config)
    catalogue = Catalogue(policy_files(config.policy_dir))
    register_policies(catalogue.policies)  # policy:NAME of the operator's folder, for the bots built here
    thinker = Thinker(catalogue.policies, config.think_seconds, config.think_slots)
    tables = TableStore(config, config.records, catalogue, thinker)

    def answer(game: WebGame, status: int = 200, **extra: Any) -> JSONResponse:
        return JSONResponse({**table_state(game), **extra}, status_code=status)

    async def rules(request: Request) -> Response:
        """How to play, rendered from the RULES.md shipped in the package (``?game=ID``: with a way back)."""
        try:
            page = rulebook.rules_page(request.query_params.get("game"))
        except OSError as e:  # a broken installation without its package data
            return PlainTextResponse(f"the rule book is missing from this installation: {e}", status_code=500)
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    async def get_meta(request: Request) -> Response:
        info = meta()
        extra = [spec for spec in catalogue.offered_policies() if spec not in info["agents"]]
        info["agents"] = [*info["agents"], *extra]
        if extra and "agent_help" in info:
            info["agent_help"].update(agent_help(extra))
        return JSONResponse({**info, "bot_delay": config.bot_delay})  # never where the server keeps its files

    async def list_games(request: Request) -> Response:
        store.sweep()
        key = owner_key(request)
        games = [
            {"id": g.id, "rules": str(g.rules), "status": g.status(), "hands": g.match.hands_dealt, "seat": g.human}
            for g in store.games.values()
            if key and store.owns(g.id, key)
        ]
        return JSONResponse({"games": games})

    async def create(request: Request) -> Response:
        body = await json_body(request)
        rules = rules_field(body)
        delay = seconds_field(body, "bot_delay", config.bot_delay, config.max_bot_delay)
        seat = int_field(body, "seat")
        seed = int_field(body, "seed")
        if seed is not None and seed < 0:
            raise ApiError(400, f"malformed body: 'seed' must be 0 or more, not {seed}")
        partner = _text(body, "partner", default_bot(rules))  # the ruleset's shipped policy, else hard
        opponents = _text(body, "opponents", default_bot(rules))
        for role, spec in (("partner", partner), ("opponents", opponents)):
            try:
                catalogue.check(spec)
            except ValueError as e:
                raise ApiError(400, f"{role}: {e}") from None
        client = request.client.host if request.client else ""
        store.room_for(client)  # 503 now, before building anything, if the server is full
        try:
            # building bots may import torch or load a checkpoint: off the event loop
            game = await anyio.to_thread.run_sync(
                lambda: WebGame(
                    new_game_id(),
                    rules,
                    0 if seat is None else seat,
                    partner,
                    opponents,
                    seed=seed,
                    bot_delay=delay,
                )
            )
        except (RulesError, SetupError) as e:
            raise ApiError(400, catalogue.scrub(str(e))) from None
        key = owner_key(request) or secrets.token_urlsafe(24)
        store.add(game, client, key)
        response = answer(game, 201)
        response.set_cookie(OWNER_COOKIE, key, max_age=30 * 86400, httponly=True, samesite="strict")
        return response

    def held(request: Request) -> tuple[WebGame, asyncio.Lock]:
        return store.get(request.path_params["game_id"], owner_key(request))

    async def get_game(request: Request) -> Response:
        game, _lock = held(request)
        return answer(game)

    async def move(request: Request) -> Response:
        game, lock = held(request)
        body = await json_body(request)
        seat, version = move_fields(body)
        async with lock:
            if not store.holds(game):
                raise ApiError(404, f"no game {game.id!r} here: it was left or expired (start a new game)")
            play_refusing(game, body["move"], seat, version)
            store.after_change(game)
            return answer(game)

    async def advance(request: Request) -> Response:
        game, lock = held(request)
        body = await json_body(request)
        version = int_field(body, "version")
        if (version is not None and version != game.version) or game.status() != "bot":
            return answer(game, advanced=False)
        view = game.view()
        delay = game.bot_delay * (2 if view.history and not view.trick and view.to_act >= 0 else 1)
        cancel = store.cancels.get(game.id)
        if cancel is None:
            return answer(game, advanced=False)
        if delay:
            try:  # the delay ends early when the game is left or the server stops
                await asyncio.wait_for(cancel.wait(), delay)
                return answer(game, advanced=False)
            except TimeoutError:
                pass
        async with lock:
            if not store.holds(game) or game.status() != "bot" or (version is not None and version != game.version):
                return answer(game, advanced=False)
            extra: dict[str, Any] = {}
            if not game.draw():
                turn = game.bot_turn()
                assert turn is not None
                seat, agent, bot_view = turn
                spec = game.specs[seat]
                seed = decision_seed(game.seed, seat, game.version)  # reproducible per game state
                try:
                    action, late = await thinker.decide(agent, spec, game.rules, seed, bot_view, cancel=cancel)
                except BotCancelled:
                    return answer(game, advanced=False)
                except BotFailed as e:  # a bot's failure is the server's, not the person's
                    raise ApiError(500, catalogue.scrub(f"the bot at seat {seat} ({spec}) failed: {e}")) from None
                if not store.holds(game):  # left or evicted while it thought: the record is already final
                    return answer(game, advanced=False)
                if late:
                    game.narrator.say(
                        f"{game.narrator.who(seat)} ran out of the {config.think_seconds:g} s a move may take: "
                        "the hard bot's move is played."
                    )
                    extra["timed_out"] = seat
                game.apply_bot(seat, action)
            store.after_change(game)
            return answer(game, advanced=True, **extra)

    async def deal(request: Request) -> Response:
        game, lock = held(request)
        async with lock:
            try:
                game.deal_next()
            except IllegalMoveError as e:
                raise ApiError(409, str(e), move="deal", seat=None, rule=e.rule) from None
            return answer(game)

    async def leave(request: Request) -> Response:
        game, lock = held(request)
        store.cancel(game)  # a bot thinking for this game stops now, so the lock comes free
        async with lock:
            path = store.drop(game, "abandoned")
        return JSONResponse({"id": game.id, "record": path, "result": game.ended})

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return JSONResponse(exc.fields, status_code=exc.status)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    async def on_server_error(request: Request, exc: Exception) -> Response:
        log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
        return JSONResponse({"error": "the server failed on this request (see its log)"}, status_code=500)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        store.cancel_all()
        thinker.kill_all()
        store.close()  # the server stops: every game still held is saved
        await tables.close_all()  # and every open table (finished games were saved when they ended)

    routes = [
        Route("/", static_page("index.html")),
        Route("/rules", rules),
        Route("/api/meta", get_meta),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{game_id}", get_game, methods=["GET"]),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/advance", advance, methods=["POST"]),
        Route("/api/games/{game_id}/deal", deal, methods=["POST"]),
        Route("/api/games/{game_id}/leave", leave, methods=["POST"]),
        Route("/tables", static_page("tables.html")),  # the host's form, and a table's page:
        Route("/tables/{table_id}", static_page("tables.html")),
        *table_routes(tables),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    guard = Middleware(
        Guard,
        hosts=config.allowed_hosts,
        requests_per_second=config.requests_per_second,
        request_burst=config.request_burst,
        creates_per_minute=config.creates_per_minute,
        create_burst=config.create_burst,
    )
    app = Starlette(
        routes=routes,
        middleware=[guard],
        exception_handlers={ApiError: on_api_error, HTTPException: on_http_error, Exception: on_server_error},
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.config = config
    app.state.thinker = thinker
    app.state.catalogue = catalogue
    app.state.tables = tables
    return app


__all__ = ["GameStore", "ServerConfig", "create_app", "new_game_id"]
