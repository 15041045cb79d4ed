"""Several people at one table: invitation links, one view per seat, pushed over a WebSocket.

A host creates a table (``POST /api/tables``: a ruleset, its options, and for each seat
``"person"`` or a bot spec from the server's catalogue) and gets one link per person's
seat, a spectator link and a host link. Each link carries its own secret
(``secrets.token_urlsafe``) in the URL's fragment, which a browser never sends in a
request or a ``Referer``: the page sends it as the first WebSocket message, and the
server finds it with :func:`hmac.compare_digest` against every key of the table (no
early exit), so a link is a capability for one role only:

* a **seat** link is sent that seat's table only, built from ``view_of(match, seat)``
  through :func:`.table.table_state` (R0.6), and may move for that seat only;
* the **spectator** link is sent the public table: :func:`public_view` is a view with
  no hand and no closed trump (R2.4c), which is what every seat may see of the others;
* the **host** link sees the public table too, plus the links, and may give a seat
  to a bot, invite a person to a bot's seat (a new secret), deal and close the table.

Every message to a connection is computed for that connection alone, under the
table's lock, after every change; the page never asks (no polling). The match lives
on the server, so a dropped connection that comes back with the same link finds the
table as it was. Bots move on their own in one task per table (:meth:`TableStore.drive`)
after the table's bot delay, through the server's :class:`.bots.Thinker`, so a search
bot thinks in a child process that a close, an expiry or a seat change kills.

Each game's R6 record (:mod:`.records`, with ``agents`` naming each seat's kind,
``"person"`` or the bot's spec) is written atomically the moment the match ends, and
as abandoned when a table is closed, expires (``idle_minutes`` without a move or a
message) or is still open when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from agents.bots.heuristic import HardAgent
from agents.playing.narrate import Narrator
from agents.registry import default_bot
from agents.web.bots import BotCancelled, BotFailed, Catalogue, Thinker, decision_seed
from agents.web.game import SetupError, WebGame
from agents.web.guard import (
    ApiError,
    RequestError,
    TokenBucket,
    int_field,
    json_body,
    parse_json,
    play_refusing,
    rules_field,
    seconds_field,
)
from agents.web.records import keep_record, record_of
from agents.web.table import table_state
from dehla_env.engine import HandSummary, MatchState, Phase
from dehla_env.errors import IllegalMoveError
from dehla_env.rules import Rules
from dehla_env.view import PlayerView, view_of, visible_trump

log = logging.getLogger("agents.web")

PERSON = "person"  # the kind recorded for a person's seat
MAX_WS_MESSAGE = 4096  # bytes: the longest message a client may send (a move is a few dozen)
HELLO_SECONDS = 10.0  # a connection must name its link this soon after opening
SEND_SECONDS = 10.0  # a client that does not take a message this long is dropped
MESSAGES_PER_SECOND = 10.0  # per connection, with a burst of MESSAGE_BURST
MESSAGE_BURST = 30
CONNECTIONS_PER_SEAT = 4  # the same person on a phone and a laptop, and a reload
WATCHERS_PER_TABLE = 16  # spectator and host connections of one table
MAX_MOVE = 32
CLOSE_REFUSED = 4400  # a refused connection (the JSON error says why)
CLOSE_GONE = 4404  # the table was closed or expired, or this link no longer holds a seat


def public_view(match: MatchState) -> PlayerView:
    """What every seat may see (R0.6): seat 0's view without its hand, its legal moves
    and, if it chose one, its closed trump (R2.4c); used for spectators and the host."""
    trump, in_force, hidden = visible_trump(match.hand, -1)
    return view_of(match, 0)._replace(
        hand=(), hand_mask=0, legal_actions=(), trump=trump, trump_in_force=in_force, trump_hidden=hidden
    )


class PublicNarrator(Narrator):
    """The log as a spectator reads it: seats by number, sides by their seats, no "you"."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules, -1)
        self.names = [f"Seat {s}" for s in range(rules.players)]

    def side_name(self, side: int) -> str:
        return "Seats " + " & ".join(str(s) for s in range(side, self.rules.players, 2))

    def side_object(self, side: int) -> str:
        return self.side_name(side).lower()


class TableNarrator(PublicNarrator):
    """One log per seat and one public log, each made from its own views only.

    It stands in for :class:`WebGame`'s narrator, which is given the person's views;
    this one ignores the views it is handed and keeps each perspective's previous view
    itself, so no seat's log is ever made from another seat's cards."""

    def __init__(self, rules: Rules, match: MatchState) -> None:
        super().__init__(rules)
        self.match = match
        self.seats = [Narrator(rules, s) for s in range(rules.players)]
        self.public = PublicNarrator(rules)
        self.before = self.views()

    def views(self) -> list[PlayerView]:
        return [*(view_of(self.match, s) for s in range(self.rules.players)), public_view(self.match)]

    def all(self) -> list[Narrator]:
        return [*self.seats, self.public]

    def say(self, text: str) -> None:
        for narrator in self.all():
            narrator.say(text)

    def _each(self, tell: Callable[[Narrator, PlayerView, PlayerView], None]) -> None:
        """Tell every perspective its own view before and after the change."""
        views = self.views()
        for narrator, b, a in zip(self.all(), self.before, views):
            tell(narrator, b, a)
        self.before = views

    def after_deal(self, view: PlayerView, hand_no: int) -> None:
        self.hand_no = hand_no
        self._each(lambda narrator, _b, a: narrator.after_deal(a, hand_no))

    def after_draw(self, before: PlayerView, after: PlayerView) -> None:
        self._each(lambda narrator, b, a: narrator.after_draw(b, a))

    def after_move(
        self, seat: int, action: int, before: PlayerView, after: PlayerView, summary: HandSummary | None
    ) -> None:
        self._each(lambda narrator, b, a: narrator.after_move(seat, action, b, a, summary))


class SharedGame(WebGame):
    """A :class:`WebGame` with any number of people: ``kinds[seat]`` is ``"person"`` or a bot spec.

    It keeps the engine, the bots and the record of :class:`WebGame`; what changes is
    who may move (any person's seat, for itself) and the log (one per seat)."""

    PERSON_TO_ACT = "person"

    def __init__(
        self, game_id: str, rules: Rules, kinds: list[str], seed: int | None = None, bot_delay: float = 0.0
    ) -> None:
        if len(kinds) != rules.players:
            raise SetupError(f"{rules.players} seats expected, not {len(kinds)}")
        people = [s for s, kind in enumerate(kinds) if kind == PERSON]
        if not people:
            raise SetupError("a table needs at least one person's seat")
        super().__init__(game_id, rules, people[0], "random", "random", seed=seed, bot_delay=bot_delay)
        self.people = set(people)
        self.specs = list(kinds)
        self.bots = {s: self.build_bot(s, kind) for s, kind in enumerate(kinds) if kind != PERSON}
        self.changes: list[dict[str, Any]] = []  # seats given to a bot or to a person, for the record
        self.narrator = TableNarrator(rules, self.match)
        self.narrator.after_deal(self.view(), self.match.hands_dealt)

    def play(self, text: Any, seat: int | None = None) -> None:
        """A person's move for ``seat`` (R6 text); the engine's error, and no change, if refused."""
        if seat is None or seat not in self.people:
            shown = text if isinstance(text, str) else repr(text)
            raise IllegalMoveError(shown, seat, f"seat {seat} is not a person's seat at this table")
        self.play_for(seat, text)

    def is_person(self, seat: int) -> bool:
        return seat in self.people

    def seat_to_bot(self, seat: int, spec: str, agent: Any) -> None:
        self.people.discard(seat)
        self.bots[seat] = agent
        self.specs[seat] = spec
        self.changes.append({"seat": seat, "kind": spec, "hand": self.match.hands_dealt, "version": self.version})

    def seat_to_person(self, seat: int) -> None:
        self.people.add(seat)
        self.bots.pop(seat, None)
        self.specs[seat] = PERSON
        self.changes.append({"seat": seat, "kind": PERSON, "hand": self.match.hands_dealt, "version": self.version})


class SeatWindow:
    """What :func:`.table.table_state` reads, for one seat (``None``: the public table).

    ``view()`` is that seat's own view (or :func:`public_view`), ``narrator`` its own log
    and ``human`` its seat; everything else is the game's own public facts, so the table
    JSON is built exactly as for a single person's game."""

    def __init__(self, game: SharedGame, seat: int | None) -> None:
        self.game = game
        self.seat = seat
        self.human = 0 if seat is None else seat
        self.narrator = game.narrator.public if seat is None else game.narrator.seats[seat]  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def view(self) -> PlayerView:
        match = self.game.match
        return public_view(match) if self.seat is None else view_of(match, self.seat)

    def status(self) -> str:
        status, match = self.game.status(), self.game.match
        if status in ("hand-over", "match-over"):
            return status
        if self.seat is not None and match.hand.phase != Phase.DRAW and match.current_player() == self.seat:
            return "your-turn"
        return "bot"  # table.py's word for "someone else is to act"


@dataclass
class Connection:
    """One open WebSocket: its role (``seat``, ``spectator`` or ``host``) and its outbox."""

    ws: WebSocket
    client: str
    role: str = ""
    seat: int | None = None
    notes: list[str] = field(default_factory=list)  # errors and answers, sent before the next state
    state: str | None = None  # the latest table state, replaced by newer ones before it is sent
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    closing: tuple[int, str] | None = None  # close with this code after the outbox is sent
    writer: asyncio.Task[None] | None = None  # sends the outbox (TableStore.write)

    def push_note(self, message: dict[str, Any]) -> None:
        self.notes.append(json.dumps(message))
        self.ready.set()


@dataclass
class Table:
    """One table: its game, its links' secrets, its connections and its bot task."""

    game: SharedGame
    owner: str
    keys: dict[str, str]  # secret -> role ("seat:N", "spectator", "host")
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # something changed: the bot task looks again
    thinking: asyncio.Event | None = None  # set: the bot now thinking stops
    connections: list[Connection] = field(default_factory=list)
    touched: float = field(default_factory=time.time)
    closed: bool = False
    task: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.game.id

    def role_of(self, key: Any) -> str | None:
        """The role a secret grants here, compared in constant time with every key."""
        if not isinstance(key, str) or not key or len(key) > 200:
            return None
        found = None
        for secret, role in self.keys.items():
            if hmac.compare_digest(secret.encode(), key.encode()):
                found = role
        return found

    def key_for(self, role: str) -> str:
        return next(secret for secret, r in self.keys.items() if r == role)

    def links(self, origin: str = "") -> dict[str, Any]:
        """``ORIGIN/tables/ID#key=SECRET`` (no origin: relative, the host's page adds its own)."""
        base = f"{origin}/tables/{self.id}#key="
        return {
            "seats": {str(s): base + self.key_for(f"seat:{s}") for s in sorted(self.game.people)},
            "spectator": base + self.key_for("spectator"),
            "host": base + self.key_for("host"),
        }

    def seat_info(self) -> list[dict[str, Any]]:
        online = {c.seat for c in self.connections if c.role == "seat"}
        return [
            {"seat": s, "kind": kind, "person": kind == PERSON, "connected": s in online}
            for s, kind in enumerate(self.game.specs)
        ]


def new_table_id() -> str:
    return f"table-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"


def save_table_record(game: SharedGame, folder: Path, result: str) -> None:
    """Keep the table's R6 record (:func:`.records.keep_record`), with each seat's kind in
    ``agents``, the people's seats and the seat changes."""
    record = record_of(game, result)
    record.pop("human_seat", None)
    record.update(people=sorted(game.people), changes=list(game.changes), source="agents.web.tables")
    keep_record(game, folder, result, record)


@dataclass
class TableLimits:
    """Caps of one server (``dehla-web --help``; :class:`.server.ServerConfig` holds them)."""

    max_tables: int = 32  # tables with several people, in all; beyond it 503
    tables_per_client: int = 4  # open tables one client address may have created; beyond it 429
    max_connections: int = 256  # open table WebSockets, in all
    connections_per_client: int = 16  # open table WebSockets per client address
    idle_minutes: float = 60.0  # a game or table untouched this long is saved as abandoned and dropped
    bot_delay: float = 0.7  # seconds before each bot move (doubled after a completed trick)
    max_bot_delay: float = 10.0  # the most a client may ask for


class TableStore:
    """The tables of one server: creation, connections, moves, bots, expiry, records."""

    def __init__(self, limits: TableLimits, records: Path, catalogue: Catalogue, thinker: Thinker) -> None:
        self.limits = limits
        self.records = records
        self.catalogue = catalogue
        self.thinker = thinker
        self.tables: dict[str, Table] = {}
        self.open: list[Connection] = []  # every open table socket, joined or waiting for its hello
        self.sweeper: asyncio.Task[None] | None = None

    def state_for(self, table: Table, conn: Connection) -> dict[str, Any]:
        seat = conn.seat if conn.role == "seat" else None
        state = table_state(cast(WebGame, SeatWindow(table.game, seat)))
        if state["status"] == "bot":
            state["status"] = "waiting"
        if seat is None:
            state["seat"] = None
            for s in state["seats"]:
                if s["role"] == "you":
                    s["role"], s["agent"] = "partner", table.game.specs[s["seat"]]
        if state["record"]:
            state["record"] = Path(state["record"]).name  # the file's name, not where the server keeps it
        state["table"] = {"role": conn.role, "seats": table.seat_info(), "closed": table.closed}
        if conn.role == "host":
            state["table"]["links"] = table.links()
        return state

    def broadcast(self, table: Table) -> None:
        """Give every connection its own view of the table now (called under the table's lock)."""
        for conn in list(table.connections):
            conn.state = json.dumps({"type": "state", "state": self.state_for(table, conn)})
            conn.ready.set()

    async def create(self, body: dict[str, Any], client: str) -> Table:
        self.sweep()
        mine = sum(1 for t in self.tables.values() if t.owner == client)
        if mine >= self.limits.tables_per_client:
            raise ApiError(429, f"you hold {mine} open tables, the most one client may; close one first")
        if len(self.tables) >= self.limits.max_tables:
            raise ApiError(503, f"the server holds its most tables ({self.limits.max_tables}); try again later")
        rules = rules_field(body)
        seats = body.get("seats")
        if not isinstance(seats, list) or len(seats) != rules.players:
            raise ApiError(400, f"malformed body: 'seats' must list {rules.players} entries, 'person' or a bot spec")
        kinds: list[str] = []
        for s, kind in enumerate(seats):
            if not isinstance(kind, str) or not kind.strip() or len(kind) > 400:
                raise ApiError(400, f"malformed body: seat {s} must be 'person' or a bot spec")
            kind = kind.strip()
            if kind != PERSON:
                try:
                    self.catalogue.check(kind)
                except ValueError as e:
                    raise ApiError(400, f"seat {s}: {e}") from None
            kinds.append(kind)
        delay = seconds_field(body, "bot_delay", self.limits.bot_delay, self.limits.max_bot_delay)
        if body.get("seed") is not None:  # whoever chose it would know every hand
            raise ApiError(400, "a table with people is dealt from the server's secret seed, never a chosen one")
        try:
            game = await anyio.to_thread.run_sync(lambda: SharedGame(new_table_id(), rules, kinds, None, delay))
        except SetupError as e:
            raise ApiError(400, self.catalogue.scrub(str(e))) from None
        keys = {secrets.token_urlsafe(24): f"seat:{s}" for s in sorted(game.people)}
        keys[secrets.token_urlsafe(24)] = "spectator"
        keys[secrets.token_urlsafe(24)] = "host"
        table = Table(game=game, owner=client, keys=keys)
        self.tables[table.id] = table
        table.task = asyncio.create_task(self.drive(table))
        if self.sweeper is None or self.sweeper.done():
            self.sweeper = asyncio.create_task(self.sweep_forever())
        return table

    async def drive(self, table: Table) -> None:
        """Move the bots (and the R1.4 draw) of one table, after its bot delay, until it closes."""
        game = table.game
        while not table.closed:
            try:
                table.wake.clear()
                if game.ended is not None or game.status() != "bot":
                    await table.wake.wait()
                    continue
                view = view_of(game.match, 0)
                delay = game.bot_delay * (2 if view.history and not view.trick and view.to_act >= 0 else 1)
                if delay:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(table.wake.wait(), delay)
                        continue  # something changed meanwhile: look again
                await self.bot_step(table)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - one table's failure must not stop the server
                log.exception("the bots of table %s failed", table.id)
                await asyncio.sleep(1.0)

    async def bot_step(self, table: Table) -> None:
        game = table.game
        version = game.version
        if game.match.hand.phase == Phase.DRAW:
            async with table.lock:
                if game.version == version and not table.closed and game.draw():
                    self.after_change(table)
            return
        turn = game.bot_turn()
        if turn is None:
            return
        seat, agent, bot_view = turn
        spec = game.specs[seat]
        cancel = table.thinking = asyncio.Event()
        seed = decision_seed(game.seed, seat, version)
        try:
            action, late = await self.thinker.decide(agent, spec, game.rules, seed, bot_view, cancel=cancel)
        except BotCancelled:
            return
        except BotFailed as e:  # the game goes on: the hard bot moves for it
            log.error(
                "table %s: the bot at seat %d (%s) failed: %s", table.id, seat, spec, self.catalogue.scrub(str(e))
            )
            action, late = HardAgent(seed).act(bot_view), True
        finally:
            table.thinking = None
        async with table.lock:
            if table.closed or game.version != version or game.specs[seat] != spec or seat in game.people:
                return
            if late:
                game.narrator.say(f"Seat {seat} ran out of time: the hard bot's move is played.")
            game.apply_bot(seat, action)
            self.after_change(table)

    def after_change(self, table: Table) -> None:
        """Under the lock, after a change: save a finished match at once, wake the bots, tell everyone."""
        game = table.game
        table.touched = time.time()
        if game.match.is_terminal() and game.ended is None:
            save_table_record(table.game, self.records, "finished")
        table.wake.set()
        self.broadcast(table)

    async def close(self, table: Table, result: str, reason: str) -> None:
        """Save the record (unless saved), stop the bots, tell and close every connection."""
        if table.thinking is not None:
            table.thinking.set()
        async with table.lock:
            if table.closed:
                return
            table.closed = True
            if table.game.ended is None:
                save_table_record(table.game, self.records, result)
            self.tables.pop(table.id, None)
            self.broadcast(table)
            for conn in list(table.connections):
                conn.push_note({"type": "error", "error": reason, "closed": True})
                conn.closing = (CLOSE_GONE, "table closed")
        if table.task is not None:
            table.task.cancel()

    def sweep(self) -> None:
        """Close the tables idle for ``idle_minutes`` (saved as abandoned), in the background."""
        cutoff = time.time() - 60.0 * self.limits.idle_minutes
        for table in [t for t in self.tables.values() if max(t.touched, t.game.touched) < cutoff]:
            asyncio.ensure_future(
                self.close(table, "abandoned", f"the table was idle {self.limits.idle_minutes:g} minutes and expired")
            )
            self.tables.pop(table.id, None)

    async def sweep_forever(self) -> None:
        period = min(60.0, max(0.05, 60.0 * self.limits.idle_minutes / 4))
        while self.tables:
            await asyncio.sleep(period)
            self.sweep()

    async def close_all(self, seconds: float = 2.0) -> None:
        """The server stops: every open table is saved as abandoned (finished ones already
        are) and each open page is told so, within ``seconds``, before the server closes its socket."""
        for table in list(self.tables.values()):
            await self.close(table, "abandoned", "the server is stopping")
        if self.sweeper is not None:
            self.sweeper.cancel()
        writers = [c.writer for c in self.open if c.writer is not None and not c.writer.done()]
        if writers:
            await asyncio.wait(writers, timeout=seconds)

    def admit(self, conn: Connection) -> None:
        """Count an opened socket, before its hello, against the server's and its client's
        caps (a socket that never says hello holds a place until it is dropped)."""
        if len(self.open) >= self.limits.max_connections:
            raise ApiError(503, f"the server holds its most connections ({self.limits.max_connections})")
        if sum(1 for c in self.open if c.client == conn.client) >= self.limits.connections_per_client:
            raise ApiError(429, f"too many connections from one client ({self.limits.connections_per_client})")
        self.open.append(conn)

    def join(self, table_id: str, key: Any, conn: Connection) -> Table:
        table = self.tables.get(table_id)
        role = table.role_of(key) if table is not None else None
        if table is None or role is None or table.closed:
            raise ApiError(404, "no such table or link: it was closed, expired, given to a bot or never existed")
        if role.startswith("seat:"):
            seat = int(role[5:])
            if sum(1 for c in table.connections if c.seat == seat and c.role == "seat") >= CONNECTIONS_PER_SEAT:
                raise ApiError(429, f"this seat's link is open {CONNECTIONS_PER_SEAT} times already")
            conn.role, conn.seat = "seat", seat
        else:
            if sum(1 for c in table.connections if c.role != "seat") >= WATCHERS_PER_TABLE:
                raise ApiError(429, f"this table has {WATCHERS_PER_TABLE} watchers already")
            conn.role = role
        table.connections.append(conn)
        table.touched = time.time()
        return table

    async def handle(self, table: Table, conn: Connection, message: dict[str, Any]) -> None:
        """One message of a joined connection; a refusal raises :class:`ApiError` and changes nothing."""
        kind = message.get("type")
        table.touched = time.time()
        game = table.game
        if kind == "state":
            async with table.lock:
                self.broadcast(table)
            return
        if kind == "move":
            if conn.role != "seat":
                raise ApiError(403, "only a seat's link may move, and only for its seat")
            text = message.get("move")
            if isinstance(text, str) and len(text) > MAX_MOVE:
                raise ApiError(400, f"malformed move: a move is at most {MAX_MOVE} characters")
            version = int_field(message, "version", "message")
            async with table.lock:
                if table.closed:
                    raise ApiError(404, "the table is closed")
                play_refusing(game, text, conn.seat, version)
                self.after_change(table)
            return
        if kind == "deal":
            if conn.role not in ("seat", "host"):
                raise ApiError(403, "only a seat or the host may deal the next hand")
            async with table.lock:
                try:
                    game.deal_next()
                except IllegalMoveError as e:
                    raise ApiError(409, str(e), move="deal", rule=e.rule) from None
                self.after_change(table)
            return
        if kind in ("bot", "invite", "close"):
            if conn.role != "host":
                raise ApiError(403, "only the host's link may change the seats or close the table")
            if kind == "close":
                await self.close(table, "abandoned", "the host closed the table")
                return
            seat = int_field(message, "seat", "message")
            if seat is None or not 0 <= seat < game.rules.players:
                raise ApiError(400, f"malformed message: 'seat' must be 0..{game.rules.players - 1}")
            if kind == "bot":
                await self.give_to_bot(table, seat, message.get("bot") or default_bot(game.rules))
            else:
                await self.invite(table, seat)
            return
        raise ApiError(400, "unknown message type: one of state, move, deal, bot, invite, close")

    async def give_to_bot(self, table: Table, seat: int, spec: Any) -> None:
        game = table.game
        if not isinstance(spec, str) or not spec.strip() or len(spec) > 400 or spec.strip() == PERSON:
            raise ApiError(400, "malformed message: 'bot' must be a bot spec such as hard or search:k=16")
        spec = spec.strip()
        try:
            self.catalogue.check(spec)
        except ValueError as e:
            raise ApiError(400, str(e)) from None
        try:
            agent = await anyio.to_thread.run_sync(lambda: game.build_bot(seat, spec))
        except SetupError as e:
            raise ApiError(400, self.catalogue.scrub(str(e))) from None
        if table.thinking is not None:
            table.thinking.set()  # a bot deciding for this seat would decide for the old owner
        async with table.lock:
            was_person = seat in game.people
            game.seat_to_bot(seat, spec, agent)
            if was_person:  # the old link no longer holds anything; its pages are told so
                table.keys = {k: r for k, r in table.keys.items() if r != f"seat:{seat}"}
                for conn in [c for c in table.connections if c.role == "seat" and c.seat == seat]:
                    table.connections.remove(conn)
                    conn.push_note({"type": "error", "error": f"the host gave seat {seat} to a bot", "closed": True})
                    conn.closing = (CLOSE_GONE, "seat given to a bot")
            game.narrator.say(f"Seat {seat} is played by {spec} now.")
            self.after_change(table)

    async def invite(self, table: Table, seat: int) -> None:
        game = table.game
        if table.thinking is not None:
            table.thinking.set()
        async with table.lock:
            if seat in game.people:
                raise ApiError(409, f"seat {seat} is a person's already; its link is on the host's page")
            game.seat_to_person(seat)
            table.keys[secrets.token_urlsafe(24)] = f"seat:{seat}"
            game.narrator.say(f"Seat {seat} waits for a person.")
            self.after_change(table)

    async def serve(self, ws: WebSocket) -> None:
        """One WebSocket: hello with the link's key, then messages until it closes."""
        await ws.accept()
        conn = Connection(ws=ws, client=ws.client.host if ws.client else "")
        table: Table | None = None
        try:
            try:
                self.admit(conn)
                hello = _message(await asyncio.wait_for(_receive(ws), HELLO_SECONDS))
                if hello.get("type") != "hello":
                    raise ApiError(400, 'the first message must be {"type": "hello", "key": SECRET}')
                table = self.join(ws.path_params["table_id"], hello.get("key"), conn)
            except (TimeoutError, ApiError) as e:
                await _refuse(ws, e if isinstance(e, ApiError) else ApiError(408, "no hello in time"))
                return
            conn.writer = asyncio.create_task(self.write(conn))
            async with table.lock:
                self.broadcast(table)  # this connection's state, and the others' "connected" flags
            bucket = TokenBucket(MESSAGES_PER_SECOND, MESSAGE_BURST)
            while conn.closing is None:
                try:
                    raw = await _receive(ws)
                    if bucket.take("this"):
                        raise ApiError(429, "too many messages: slow down")
                    await self.handle(table, conn, _message(raw))
                except ApiError as e:
                    conn.push_note({"type": "error", **e.fields})
                    if e.status == 413:
                        conn.closing = (1009, "message too big")
        except (WebSocketDisconnect, RuntimeError):
            pass  # the page was closed or the network dropped: the table waits for it
        finally:
            if conn in self.open:
                self.open.remove(conn)
            if table is not None and conn in table.connections:
                table.connections.remove(conn)
                if not table.closed:
                    async with table.lock:
                        self.broadcast(table)
            if conn.writer is not None:
                if conn.closing is None:  # the page went: nothing is left to send it
                    conn.writer.cancel()
                conn.ready.set()
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(conn.writer, SEND_SECONDS)

    async def write(self, conn: Connection) -> None:
        """Send the connection's notes and its latest state, in order, until it closes."""
        ws = conn.ws
        try:
            while True:
                await conn.ready.wait()
                conn.ready.clear()
                while conn.notes or conn.state is not None:
                    if conn.state is not None:
                        text, conn.state = conn.state, None
                    else:
                        text = conn.notes.pop(0)
                    await asyncio.wait_for(ws.send_text(text), SEND_SECONDS)
                if conn.closing is not None:
                    await ws.close(*conn.closing)
                    return
        except (TimeoutError, WebSocketDisconnect, RuntimeError, OSError):
            with contextlib.suppress(Exception):
                await ws.close(1011)


async def _receive(ws: WebSocket) -> str:
    """The next text message; a binary frame is refused with a one-line error (the
    connection stays), a close raises :class:`WebSocketDisconnect`."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    if message.get("text") is None:
        raise ApiError(400, "malformed message: a message is JSON text, not a binary frame")
    return cast(str, message["text"])


def _message(raw: str) -> dict[str, Any]:
    """A client's message: at most :data:`MAX_WS_MESSAGE` bytes of a JSON object."""
    if len(raw) > MAX_WS_MESSAGE or len(raw.encode()) > MAX_WS_MESSAGE:
        raise ApiError(413, f"message over {MAX_WS_MESSAGE} bytes")
    try:
        value = parse_json(raw.encode())
    except RequestError as e:
        raise ApiError(400, str(e)) from None
    if not isinstance(value, dict):
        raise ApiError(400, "malformed message: a JSON object is expected")
    return value


async def _refuse(ws: WebSocket, error: ApiError) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(json.dumps({"type": "error", **error.fields}))
        await ws.close(CLOSE_REFUSED if error.status != 404 else CLOSE_GONE)


def table_routes(store: TableStore) -> list[BaseRoute]:
    """``POST /api/tables`` and the WebSocket ``/ws/tables/{table_id}``."""

    async def create(request: Request) -> Response:
        body = await json_body(request)
        client = request.client.host if request.client else ""
        table = await store.create(body, client)  # a refusal is the app's ApiError answer
        game = table.game
        return JSONResponse(
            {
                "id": table.id,
                "rules": str(game.rules),
                "players": game.rules.players,
                "seats": game.specs,
                "links": table.links(str(request.base_url).rstrip("/")),
            },
            status_code=201,
        )

    return [
        Route("/api/tables", create, methods=["POST"]),
        WebSocketRoute("/ws/tables/{table_id}", store.serve),
    ]


__all__ = [
    "PERSON",
    "PublicNarrator",
    "SeatWindow",
    "SharedGame",
    "Table",
    "ApiError",
    "TableLimits",
    "TableNarrator",
    "TableStore",
    "public_view",
    "save_table_record",
    "table_routes",
]
