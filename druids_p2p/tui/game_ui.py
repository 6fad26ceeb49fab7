"""What the neutral TUI (the app shell, the lobby, the bridge to the net layer, the CLI's entry
points) needs of one game's TUI package, and nothing of the game itself.

Each game's TUI package (``tui/<game>/``) fills a :class:`GameUI`, and its game's spec names it
as ``"module:attr"`` (``GameSpec.ui``); :func:`game_ui` imports it when a UI is first asked
for, by the game's name. So the CLI finds the table screen, the offline table, the replay viewer
and the screenshots of any registered game, and nothing here imports a game's package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.message import Message
from textual.screen import Screen

from druids_p2p.games.registry import game_spec, games, load_attr
from druids_p2p.tui.evening import Evening, PlayedGame
from druids_p2p.tui.pacing import Pacing
from druids_p2p.tui.prefs import NO_PREFS, TablePrefs
from druids_p2p.tui.session import SeatSnapshot, Session, SessionEnded

if TYPE_CHECKING:
    from druids_p2p.audit.replay import ReplayedGame
    from druids_p2p.lan.peer_config import TableView


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
        ``prefs``: the person's, tui/prefs.py)."""
        return self.screen(session, expected, pacing=pacing, clock=clock, prefs=prefs)


OfflineApp = Callable[..., App[dict[str, Any] | None]]
"""``(names, bots_by_seat, *, seat, seed, budget_ms, folder, pause_s, prefs)``: the app of a game
played against in-process bots on this machine, its record kept in ``folder``."""


LobbyTable = tuple[str, str, str, int, list[str], bool]
"""A made-up table a lobby screenshot hears: (name, host, address, seats, seated, variant)."""


@dataclass(frozen=True)
class GameUI:
    """One game's TUI entry, named by its game's spec (``GameSpec.ui``)."""

    name: str
    """The game's name (its spec's)."""
    screenshots: Callable[[Path], None]
    """Write the game's README screenshots into a folder."""
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
    lobby_svg: str = ""
    """The file of its lobby's screenshot (none if empty), which hears :attr:`lobby_tables` and
    the default game's made-up tables."""
    lobby_tables: tuple[LobbyTable, ...] = ()


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
