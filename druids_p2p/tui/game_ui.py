"""What the neutral TUI needs of one game's TUI package, and what passes between them: the messages
a table posts, the person's preferences, the pacing of what is shown and the evening's scores;
nothing of the game itself. Panels a game UI updates only when their content changed
(`show_once`) and the footer (`KeysFooter`) are here too, so a table update restyles only what
changed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from druids_p2p.games.registry import game_spec, games, load_attr

if TYPE_CHECKING:
    from druids_p2p.audit.replay import ReplayedGame
    from druids_p2p.lan.peer_config import TableView

__all__ = ["Evening", "PlayedGame", "Standing"]


# A ``Static`` that is given its content again only when it changed.
def text_key(text: Text) -> tuple[Any, ...]:
    """Everything a ``Text`` is shown with (``Text.__eq__`` leaves out its style and layout)."""
    return (
        text.plain,
        str(text.style),
        tuple(text.spans),
        text.justify,
        text.overflow,
        text.no_wrap,
        text.end,
    )


def show_once(widget: Static, key: object, make: Callable[[], RenderableType]) -> None:
    """Update ``widget`` with ``make()`` unless it last showed the same ``key``."""
    if getattr(widget, "_steady_key", _NEVER) == key:
        return
    widget._steady_key = key  # type: ignore[attr-defined]
    widget.update(make())


def show_text(widget: Static, text: Text | str) -> None:
    """Update ``widget`` with ``text`` unless it already shows the same text, styled the same."""
    key = text_key(text) if isinstance(text, Text) else ("str", text)
    show_once(widget, key, lambda: text)


_NEVER = object()


class KeysFooter(Footer):
    """Textual's ``Footer``, built again only when the keys it shows changed: Textual's own is
    rebuilt, each key restyled twice, on every focus move (each card of a hand) and refresh."""

    _keys: tuple[object, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True  # (as Footer's, which calls ``recompose`` directly)
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        if not self.is_attached or self._pruning:  # (as ``recompose``: its screen is gone)
            return
        shown = self.screen.active_bindings.items()
        key = self.app.get_key_display
        keys = tuple((k, b, on, tip, key(b)) for k, (_, b, on, tip) in shown)
        if keys != self._keys:
            self._keys = keys
            await self.recompose()


# What the neutral TUI needs of one game's TUI package, and what passes between them: the
# messages a table posts, the person's preferences, the pacing of what is shown and the evening's
# scores; nothing of the game itself.
class SeatSnapshot(Protocol):
    """What every game's snapshot of a table says, and all the neutral TUI reads of one: who
    sits where, which seat is this one, which move request it answers."""

    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def my_seat(self) -> int | None: ...
    @property
    def turn(self) -> int: ...
    def name(self, seat: int | None) -> str: ...


class PeerEvent(Message):
    """One event of the peer (``config.emit``: lobby, joined, seated, move, away, …), with a
    snapshot of the table taken just after it (None before the table machine exists)."""

    def __init__(self, event: dict[str, Any], snapshot: SeatSnapshot | None) -> None:
        super().__init__()
        self.event = event
        self.snapshot = snapshot


class TurnRequest(Message):
    """The peer waits for this seat's move; ``snapshot.turn`` must come back with it."""

    def __init__(self, snapshot: SeatSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot


class MoveRejected(Message):
    """The move the UI submitted is not legal here (the engine's reason, in the player's words)."""

    def __init__(self, move: int, reason: str) -> None:
        super().__init__()
        self.move = move
        self.reason = reason


class SessionEnded(Message):
    """The peer stopped: ``result`` is its result (record, totals…) or ``error`` one line."""

    def __init__(self, result: dict[str, Any] | None, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class Session:
    """A table the UI plays at. Subclasses post the messages above to the app."""

    title = "table"
    result: dict[str, Any] | None = None
    """The peer's result once the game ended or stopped."""
    record: str | None = None
    """Where this peer's game record is written, once known."""
    coach_on: bool = False
    """The table's options turn the coach on (one person, the rest bots: protocol.md §3)."""

    def start(self) -> None:
        raise NotImplementedError

    def submit(self, move: int, turn: int) -> None:
        """The person chose ``move`` for the request numbered ``turn``."""
        raise NotImplementedError

    def send_chat(self, text: str) -> str | None:
        """Say ``text`` to the table (lan/peer_config.py); the reason it is not sent, or None."""
        return "there is nobody to talk to at this table"

    def close(self) -> None:
        """Leave the table: stop the peer and any bot processes (idempotent)."""


SEEN_FOLDER = "seen"
"""Under the data folder: one empty file per thing shown once (``legend-<game>``)."""


@dataclass(frozen=True)
class TablePrefs:
    confirm_plays: bool = False
    """The first key on a card marks it; the same key (or enter) again plays it; any other key
    cancels (a guard against misplays: without it the key plays at once)."""
    legend: bool = False
    """Open the game's legend (every sign of the board) as the table opens."""


NO_PREFS = TablePrefs()


def first_time(home: Path, topic: str) -> bool:
    """True the first time ``topic`` is asked about in the data folder ``home`` (it is then
    remembered there: a file under ``seen/``); False after, and when the folder cannot be
    written (nothing is shown rather than shown every time)."""
    marker = home / SEEN_FOLDER / topic
    if marker.exists():
        return False
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class PlayedGame:
    """One game of the evening, as its end screen showed it."""

    names: tuple[str, ...]
    """In play order (the order of ``totals`` and ``winners``)."""
    totals: tuple[int, ...] | None
    """None: the table stopped."""
    winners: tuple[int, ...] = ()
    me: str | None = None
    """This UI's person's name at that table."""
    stopped: str | None = None


@dataclass(frozen=True)
class Standing:
    """One name's running score over the evening."""

    name: str
    games: int
    wins: int
    points: int
    stopped: int
    """Games of theirs that stopped (no points counted)."""
    me: bool


class Evening:
    """The games of this session, in the order they ended (``note`` replaces a game noted again
    under the same key: a table's end is told once it stops and again with its result)."""

    def __init__(self) -> None:
        self._games: dict[object, PlayedGame] = {}

    def note(self, key: object, game: PlayedGame) -> None:
        self._games[key] = game

    def forget(self, key: object) -> None:
        """A stopped table whose game went on at a next one: counted once, as that one ends."""
        self._games.pop(key, None)

    @property
    def games(self) -> list[PlayedGame]:
        return list(self._games.values())

    def standings(self) -> list[Standing]:
        """Per name: most wins first, then most points, then the order they were first seen."""
        seen: dict[str, list[int]] = {}
        mine: set[str] = set()
        for game in self.games:
            if game.me is not None:
                mine.add(game.me)
            for seat, name in enumerate(game.names):
                games, wins, points, stopped = seen.setdefault(name, [0, 0, 0, 0])
                if game.totals is None or seat >= len(game.totals):
                    seen[name] = [games + 1, wins, points, stopped + 1]
                    continue
                won = 1 if seat in game.winners else 0
                seen[name] = [games + 1, wins + won, points + game.totals[seat], stopped]
        order = list(seen)
        rows = [Standing(n, *_four(seen[n]), me=n in mine) for n in order]
        return sorted(rows, key=lambda s: (-s.wins, -s.points, order.index(s.name)))

    def lines(self) -> list[str]:
        """The running scores, one line a player, for an end screen (empty before any game)."""
        games = self.games
        if not games:
            return []
        stopped = sum(1 for g in games if g.totals is None)
        head = f"This evening: {len(games)} game{'s' if len(games) != 1 else ''}"
        if stopped:
            head += f" ({stopped} stopped, counted without points)"
        out = [head]
        for s in self.standings():
            you = " (you)" if s.me else ""
            wins = f"{s.wins} win{'s' if s.wins != 1 else ''}"
            points = str(s.points).replace("-", "−")
            over = f"{s.games} game{'s' if s.games != 1 else ''}"
            out.append(f"  {s.name}{you}: {wins}, {points} points over {over}")
        return out

    def to_json(self) -> list[dict[str, object]]:
        """The standings, for ``druids play --json``."""
        return [
            {"name": s.name, "games": s.games, "wins": s.wins, "points": s.points}
            for s in self.standings()
        ]


def _four(counts: list[int]) -> tuple[int, int, int, int]:
    games, wins, points, stopped = counts
    return games, wins, points, stopped


T = TypeVar("T")


@dataclass(frozen=True)
class Pacing:
    """How long the table holds what it just showed (seconds; 0 = not at all)."""

    move_s: float = 0.6
    """After each move (a bot's move stays in view at least this long before the next)."""
    trick_s: float = 3.0
    """After a completed trick: it stays on the table, who played what and who took it."""

    @property
    def off(self) -> bool:
        return self.move_s <= 0 and self.trick_s <= 0


UI_PACING = Pacing()
"""The terminal UI's default: on."""
NO_PACING = Pacing(0.0, 0.0)
"""Everything at once (tests of other things; a table nobody watches)."""


class Pacer(Generic[T]):
    """A queue of things to show and the holds between them."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.queue: deque[T] = deque()
        self.until = 0.0
        """Nothing more is shown before this time."""
        self.blocked = False
        """Held until :meth:`release` (a round summary being read)."""
        self.key_ends_hold = False
        """The current hold is a trick's: any key ends it."""

    def push(self, item: T) -> None:
        self.queue.append(item)

    def hold(self, seconds: float, key_ends: bool = False) -> None:
        """Show nothing more for ``seconds`` from now (a longer hold already on is kept)."""
        if seconds <= 0:
            return
        until = self.clock() + seconds
        if until > self.until:
            self.until = until
            self.key_ends_hold = key_ends

    def block(self) -> None:
        self.blocked = True

    def release(self) -> None:
        """End every hold now (a key, a summary closed)."""
        self.until = 0.0
        self.blocked = False
        self.key_ends_hold = False

    @property
    def holding(self) -> bool:
        return self.blocked or self.clock() < self.until

    def next_ready(self) -> T | None:
        """The next thing to show, if its time has come."""
        if not self.queue or self.holding:
            return None
        if self.until:
            self.until = 0.0
            self.key_ends_hold = False
        return self.queue.popleft()

    def wait_s(self) -> float | None:
        """Seconds until the next thing may be shown (None: nothing waits, or a block)."""
        if not self.queue or self.blocked:
            return None
        return max(0.0, self.until - self.clock())


class GameTableScreen(Screen[None]):
    """A game's table screen as the app shell sees it: it is handed every message of the
    session (:meth:`receive`) and says how the table stands when the person quits."""

    record: str | None = None
    """Where this peer's game record is written, once known."""
    stopped: str | None = None
    """Why the table stopped, if it did."""
    finished: bool = False
    ended: SessionEnded | None = None
    result: dict[str, Any] | None = None
    snapshot: SeatSnapshot | None = None
    """The table as last shown (names and this seat: what ``druids play`` prints at the end)."""

    async def receive(self, message: Message) -> None:
        """A message from the session, shown in its turn."""
        raise NotImplementedError

    def evening_lines(self, game: PlayedGame) -> list[str]:
        """This table's end, noted in the app's evening (once per table: noted again, it is
        replaced); the running scores to show on the end screen."""
        evening = getattr(self.app, "evening", None)
        if not isinstance(evening, Evening):
            return []
        evening.note(self, game)
        return evening.lines()

    @property
    def rematch_offered(self) -> bool:
        """The app can seat the same people again with the same options (``r``)."""
        return bool(getattr(self.app, "can_rematch", False))

    def open_chat(self) -> None:
        """Open the chat box (key ``c``, over the table or any prompt on it)."""
        raise NotImplementedError

    @property
    def coach_on(self) -> bool:
        """The table's signed options turn the coach on (key ``a``)."""
        return False

    def ask_coach(self) -> None:
        """Show what the strongest bot would play here and why (key ``a``)."""


TableScreenFactory = Callable[..., GameTableScreen]
"""``(session, expected, *, pacing, clock, prefs)``: the game's table screen over ``session``."""

Snapshots = Callable[["TableView", int | None], SeatSnapshot]
"""``(table view, turn)``: the game's picture of a peer's table, taken on the peer's thread;
``turn`` is the number of the move request (None: the snapshot offers no move)."""


@dataclass(frozen=True)
class TableUI:
    """What the app shell needs to seat the person at a table of peers playing this game."""

    screen: TableScreenFactory
    snapshots: Snapshots
    help: Callable[[], Screen[None]]
    """The help over its table and the lobby (key ``?``): the game's keys and rules."""

    def open(
        self,
        session: Session,
        expected: tuple[str, ...],
        pacing: Pacing,
        clock: Callable[[], float],
        prefs: TablePrefs = NO_PREFS,
    ) -> GameTableScreen:
        """The table screen over ``session`` (``expected``: the bots awaited before seating;
        ``prefs``: the person's, tui/game_ui.py)."""
        return self.screen(session, expected, pacing=pacing, clock=clock, prefs=prefs)


OfflineApp = Callable[..., App[dict[str, Any] | None]]
"""``(names, bots_by_seat, *, seat, seed, budget_ms, folder, pause_s, prefs)``: the app of a game
played against in-process bots on this machine, its record kept in ``folder``."""


@dataclass(frozen=True)
class GameUI:
    """One game's TUI entry, named by its game's spec (``GameSpec.ui``)."""

    name: str
    """The game's name (its spec's)."""
    table: TableUI | None = None
    """Its table screen at a table of peers; None while tables of peers cannot deal it."""
    offline: OfflineApp | None = None
    """Its app against in-process bots (``druids play --game``), if it has one."""
    replay: Callable[[ReplayedGame], App[None]] | None = None
    """Its viewer of a table's record (``druids replay RECORD``), if it has one."""
    legend: bool = False
    """Its table shows its legend by itself the first time (its board has signs of its own)."""
    tricks: bool = False
    """Its table holds a finished trick in view (``--trick-pause``)."""


@cache
def game_ui(name: str | None = None) -> GameUI:
    """The UI of game ``name`` (None: the default), imported from its spec's ``ui`` the first
    time; ValueError (one line, naming it) if the game has none or it does not load."""
    spec = game_spec(name)
    if not spec.ui:
        known = ", ".join(n for n, s in games().items() if s.ui)
        raise ValueError(f"{spec.name!r} has no terminal UI (games with one: {known})")
    try:
        ui = load_attr(spec.ui)
    except Exception as exc:
        raise ValueError(f"{spec.name!r}: its terminal UI {spec.ui} does not load: {exc}") from None
    if not isinstance(ui, GameUI) or ui.name != spec.name:
        raise ValueError(f"{spec.name!r}: {spec.ui} is no GameUI of {spec.name}")
    return ui


def game_uis() -> list[GameUI]:
    """The UI of every registered game that has one."""
    return [game_ui(n) for n, s in games().items() if s.ui]


def table_ui(name: str | None = None) -> TableUI:
    """Game ``name``'s table screen at a table of peers; ValueError if it has none yet."""
    ui = game_ui(name)
    if ui.table is None:
        raise ValueError(f"{ui.name!r} has no table of peers in the terminal UI yet")
    return ui.table


def offline_app(name: str | None = None) -> OfflineApp:
    """Game ``name``'s app against in-process bots; ValueError if it has none."""
    ui = game_ui(name)
    if ui.offline is None:
        raise ValueError(f"{ui.name!r} has no offline table in the terminal UI")
    return ui.offline
