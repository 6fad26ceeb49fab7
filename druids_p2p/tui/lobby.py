"""The LAN lobby (``druids play --lan``) of the one game asked for: the tables heard on the chosen
network, each with its host's key fingerprint (a name is not an identity), and hosting or joining
one, bots included."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Checkbox, DataTable, Footer, Input, Label, Select, Static

from druids_p2p.games.registry import RULESETS, default_name, new_table_options
from druids_p2p.games.spec import LEVELS
from druids_p2p.lan.discovery import DEFAULT_PORT, TableAnnouncement
from druids_p2p.lan.listener import BeaconListener, namesakes, pin_matches
from druids_p2p.lan.network import NetChoice
from druids_p2p.lan.peer_config import HostSpec
from druids_p2p.tui.bots import bot_seats
from druids_p2p.tui.dialogs import ConfirmJoin
from druids_p2p.tui.player import TableSpec
from druids_p2p.tui.widgets import SizeWarning, plain

OPEN_SEAT = "open"
"""A seat left for a player on the LAN."""
EACH_SEAT = "each"
"""The level choice that leaves each seat's bot as chosen."""


@dataclass
class LanSetup:
    net: NetChoice
    beacon_port: int = DEFAULT_PORT
    bots: tuple[str, ...] = ("rule", "random", "pimc")
    """Bot names offered for seats."""
    budget_ms: float = 100.0
    table_name: str = "druids"
    rounds: int = 5
    variant: bool = False
    game: str = field(default_factory=default_name)
    """The rule set of the tables hosted here (their options are that rule set's)."""
    plugins_dirs: tuple[Path, ...] = field(default_factory=tuple)
    listener: BeaconListener | None = None
    """Listen with this instead of opening one on ``net`` (screenshots feed it beacons)."""
    pins: tuple[str, ...] = ()
    """Fingerprint prefixes (``table_choice.parse_pin``) of hosts joined without asking."""
    trusted: set[bytes] = field(default_factory=set)
    """Host keys the person confirmed in this session (asked once per host)."""
    level: str | None = None
    """The level (``druids play --level``) whose bot the bot seats start with."""

    def pinned(self, host_key: bytes) -> bool:
        return host_key in self.trusted or any(pin_matches(p, host_key) for p in self.pins)


DEFAULT_PLAYERS = 4
"""The seats the host dialog proposes (within the game's range)."""


class LobbyScreen(Screen[None]):
    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    LobbyScreen #lobby-title { height: 1; background: $primary; padding: 0 1; }
    LobbyScreen #tables { height: 1fr; min-height: 5; border: round $primary; }
    LobbyScreen .form { height: auto; border: round $primary; padding: 0 1; }
    LobbyScreen .row { height: auto; }
    LobbyScreen .row Label { padding: 1 1 0 0; }
    LobbyScreen Select { width: 22; }
    LobbyScreen #table-name { width: 24; }
    LobbyScreen #lobby-status { height: 1; padding: 0 1; }
    LobbyScreen #lobby-status.error { color: $error; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "host", "host a table"),
        Binding("j", "join", "join selected"),
    ]

    def __init__(self, setup: LanSetup) -> None:
        super().__init__()
        self.setup = setup
        self.listener: BeaconListener | None = setup.listener
        self.tables: list[TableAnnouncement] = []
        self._shown: list[tuple[str, int, int]] = []
        self._quiet = True
        """No beacon dropped for room lately (else the status line says so)."""
        rules = RULESETS[setup.game]
        self.seat_range = range(rules.min_players, rules.max_players + 1)
        """The seats a table of this lobby's game has."""
        self.by_rounds = "rounds" in rules.table_flags
        """The game is played by rounds (Druids 2017): its tables have rounds and a variant."""

    def compose(self) -> ComposeResult:
        net = self.setup.net
        where = f"{net.name} ({net.address}, beacons on {net.broadcast}:{self.setup.beacon_port})"
        game = self.setup.game
        yield SizeWarning("the lobby", 0, 0)  # its size once the forms are laid out
        yield Static(f"Druids — LAN lobby for {game} on {where}", id="lobby-title")
        table: DataTable[str | Text] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        table.border_title = f"Tables announced (enter or j: join a {game} table)"
        yield table
        bot_options = [(f"bot: {b}", b) for b in self.setup.bots]
        bot_options += [(f"bot: {b}", b) for b in LEVELS if b not in self.setup.bots]
        level = self.setup.level
        first_bot = level or (self.setup.bots[0] if self.setup.bots else OPEN_SEAT)
        with Vertical(classes="form", id="host-form") as form:
            form.border_title = "Host a new table (h)"
            with Horizontal(classes="row"):
                yield Label("name")
                yield Input(self.setup.table_name, id="table-name", max_length=32)
                yield Label("players")
                seats = self.seat_range
                yield Select(
                    [(str(n), n) for n in seats],
                    value=min(max(DEFAULT_PLAYERS, seats.start), seats.stop - 1),
                    id="players",
                    allow_blank=False,
                )
                if self.by_rounds:
                    yield Label("rounds")
                    yield Select(
                        [(str(n), n) for n in range(1, 6)],
                        value=self.setup.rounds,
                        id="rounds",
                        allow_blank=False,
                    )
                    yield Checkbox("light side", self.setup.variant, id="variant")
            with Horizontal(classes="row"):
                for seat in range(2, self.seat_range.stop):
                    yield Label(f"player {seat}", id=f"seat-label-{seat}")
                    yield Select(
                        [("LAN player", OPEN_SEAT), *bot_options],
                        value=first_bot,
                        id=f"seat-{seat}",
                        allow_blank=False,
                    )
            with Horizontal(classes="row"):
                yield Label("bots' level")  # every bot seat plays it (druids play --level)
                yield Select(
                    [("each seat's", EACH_SEAT), *((name, name) for name in LEVELS)],
                    value=level or EACH_SEAT,
                    id="level",
                    allow_blank=False,
                )
                yield Button("Host (h)", id="host", variant="primary")
        with Vertical(classes="form", id="join-form") as form:
            form.border_title = "Join the selected table (enter)"
            with Horizontal(classes="row"):
                yield Label("bring bots")
                yield Select(
                    [(str(n), n) for n in range(0, 5)], value=0, id="join-bots", allow_blank=False
                )
                yield Label("bot")
                yield Select(
                    bot_options or [("rule", "rule")],
                    value=self.setup.bots[0] if self.setup.bots else "rule",
                    id="join-bot",
                    allow_blank=False,
                )
                yield Button("Join (j)", id="join", variant="success")
        yield Static("listening for tables…", id="lobby-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        table.add_columns(
            "table",
            "game",
            "host",
            "fingerprint",
            "seats",
            "rounds",
            "variant",
            "join at",
            "seated",
        )
        if self.listener is None:
            try:
                self.listener = BeaconListener(self.setup.net, self.setup.beacon_port)
            except OSError as exc:
                port = self.setup.beacon_port
                self.status(f"cannot listen for tables on port {port}: {exc}", True)
        if self.listener is not None:  # pinned and confirmed hosts are never dropped for room
            self.listener.keep = self.setup.pinned
        self._show_seats()
        self.set_interval(0.5, self.poll)
        table.focus()
        self.call_after_refresh(self._check_size)

    def on_resize(self) -> None:
        self.call_after_refresh(self._check_size)

    def _check_size(self) -> None:
        """Say so when the terminal cannot show the whole lobby: the widest row of a form, and
        every part's height with the list of tables at its smallest."""
        banner = self.query_one(SizeWarning)
        forms = list(self.query(".form"))
        banner.min_width = max(
            sum(child.outer_size.width for child in row.children if child.display)
            + form.styles.gutter.width
            for form in forms
            for row in form.query(".row")
        )
        tables = self.query_one("#tables", DataTable)
        parts = [c for c in self.children if c is not banner and c is not tables and c.display]
        table_min = int(tables.styles.min_height.value) if tables.styles.min_height else 3
        banner.min_height = (
            sum(c.outer_size.height for c in parts) + table_min + tables.styles.gutter.height
        )
        banner.check(self.app.size.width, self.app.size.height)

    def on_unmount(self) -> None:
        self.close_listener()

    def close_listener(self) -> None:
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    def status(self, text: str, error: bool = False) -> None:
        widget = self.query_one("#lobby-status", Static)
        widget.update(plain(text))  # it may quote a table's name
        widget.set_class(error, "error")

    # ------------------------------------------------------------------ the list
    def poll(self) -> None:
        if self.listener is None:
            return
        try:
            found = self.listener.poll(0)
        except (OSError, ValueError) as exc:
            self.status(f"listening failed: {exc}", True)
            return
        dropping = self.listener.dropping()
        if dropping is not None:
            self.status(dropping, True)
        shown = [(t.lobby_id.hex(), t.info.seats_taken, t.info.players) for t in found]
        if shown == self._shown and (dropping is None) == self._quiet:
            return
        self._quiet = dropping is None
        self._shown = shown
        self.tables = found
        table = self.query_one("#tables", DataTable)
        row = table.cursor_row
        table.clear()
        several = namesakes(found)
        for t in found:
            info = t.info
            seated = plain(", ".join(s.name for s in info.seats))  # names: never markup
            seats = f"{info.seats_taken}/{info.players}" + (" full" if info.full else "")
            name = plain(info.name)
            if info.name in several:
                name = plain(f"{info.name} (!{several[info.name]} hosts)", "bold red")
            pin = "✓ " if self.setup.pinned(t.beacon.host_key) else ""
            known = RULESETS.get(info.ruleset)  # a game without rounds has no variant either
            dealt = known is not None and "rounds" in known.table_flags
            said = info.ruleset + (", coach on" if info.coach else "")
            game: str | Text = said if info.ruleset == self.setup.game else Text(said, style="dim")
            table.add_row(
                name,
                game,
                plain(t.beacon.host_name),
                pin + t.beacon.host_fingerprint,
                seats,
                str(info.rounds) if dealt else "-",
                "light side" if dealt and info.variant else "-",
                plain(info.lobby_address or "-"),  # what `druids join HOST:PORT` takes
                seated,
                key=t.lobby_id.hex(),
            )
        if found:
            table.move_cursor(row=min(max(row, 0), len(found) - 1))
        if dropping is None:
            self.status(f"{len(found)} table(s) heard" if found else "no tables heard yet")

    def selected(self) -> TableAnnouncement | None:
        table = self.query_one("#tables", DataTable)
        if not self.tables or table.cursor_row < 0 or table.cursor_row >= len(self.tables):
            return None
        return self.tables[table.cursor_row]

    # ------------------------------------------------------------------ host / join
    def _show_seats(self) -> None:
        players = self.query_one("#players", Select).value
        n = players if isinstance(players, int) else DEFAULT_PLAYERS
        for seat in range(2, self.seat_range.stop):
            visible = seat <= n
            self.query_one(f"#seat-{seat}", Select).display = visible
            self.query_one(f"#seat-label-{seat}", Label).display = visible

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "players":
            self._show_seats()
        elif event.select.id == "level" and event.value in LEVELS:
            for seat in range(2, self.seat_range.stop):  # every bot seat plays the level
                chosen = self.query_one(f"#seat-{seat}", Select)
                if chosen.value != OPEN_SEAT:
                    chosen.value = event.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_join()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "host":
            self.action_host()
        elif event.button.id == "join":
            self.action_join()

    def action_host(self) -> None:
        setup = self.setup
        name = self.query_one("#table-name", Input).value.strip()
        if not name or len(name) > 32 or not name.isprintable():
            self.status("a table name is 1 to 32 printable characters", True)
            return
        players = int(self.query_one("#players", Select).value)  # type: ignore[arg-type]
        rounds, variant = setup.rounds, False
        if self.by_rounds:
            rounds = int(self.query_one("#rounds", Select).value)  # type: ignore[arg-type]
            variant = self.query_one("#variant", Checkbox).value
        choices = [str(self.query_one(f"#seat-{s}", Select).value) for s in range(2, players + 1)]
        bots = bot_seats([c for c in choices if c != OPEN_SEAT])
        open_seats = sum(1 for c in choices if c == OPEN_SEAT)
        options = new_table_options(setup.game, players, variant, rounds)
        spec = TableSpec(
            bots=bots,
            host=HostSpec(name, options, setup.game),
            bind=setup.net.address,
            announce=True,
            beacon_port=setup.beacon_port,
            budget_ms=setup.budget_ms,
            plugins_dirs=setup.plugins_dirs,
        )
        expected = tuple(b.name for b in bots) + ("(LAN player)",) * open_seats
        self._open(spec, expected)

    def action_join(self) -> None:
        t = self.selected()
        if t is None:
            self.status("no table selected: wait for one to be announced, or host one (h)", True)
            return
        if t.info.ruleset != self.setup.game:
            game = t.info.ruleset
            self.status(
                f"'{t.name}' is a {game} table; this lobby joins {self.setup.game} tables "
                f"(open 'druids play --lan --game {game}' to join it)",
                True,
            )
            return
        if t.info.full:
            self.status(f"'{t.name}' is full", True)
            return
        count = int(self.query_one("#join-bots", Select).value)  # type: ignore[arg-type]
        if count > t.info.seats_free - 1:
            free = t.info.seats_free - 1
            self.status(f"'{t.name}' has room for you and at most {free} bot(s)", True)
            return
        kind = str(self.query_one("#join-bot", Select).value)
        if self.setup.pinned(t.beacon.host_key):
            self._join(t, count, kind)
            return
        others = namesakes(self.tables).get(t.name, 1) - 1
        warning = (
            f"{others} other host(s) announce a table named {t.name!r}: check the fingerprint"
            if others
            else None
        )
        lines = [
            f"table {t.name!r} hosted by {t.beacon.host_name} at "
            f"{t.info.lobby_address or t.info.endpoint}",
            "A table name is not an identity: join only if this is the fingerprint of the "
            "host you mean (they see theirs with 'druids id').",
        ]

        def answered(yes: bool | None) -> None:
            if yes:
                self.setup.trusted.add(t.beacon.host_key)
                self._join(t, count, kind)
            else:
                self.status(f"not joined: '{t.name}' by {t.beacon.host_fingerprint}")

        self.app.push_screen(ConfirmJoin(lines, t.beacon.host_fingerprint, warning), answered)

    def _join(self, t: TableAnnouncement, count: int, kind: str) -> None:
        bots = bot_seats([kind] * count)
        spec = TableSpec(
            bots=bots,
            announcement=t.beacon.raw,
            lobby_id=t.lobby_id.hex(),
            host_fingerprint=t.beacon.host_fingerprint,
            bind=self.setup.net.address,
            beacon_port=self.setup.beacon_port,
            budget_ms=self.setup.budget_ms,
            plugins_dirs=self.setup.plugins_dirs,
        )
        spec_title = f"LAN table '{t.name}' hosted by {t.beacon.host_name}"
        self._open(spec, tuple(b.name for b in bots), spec_title)

    def _open(self, spec: TableSpec, expected: tuple[str, ...], title: str | None = None) -> None:
        self.close_listener()
        open_table = getattr(self.app, "open_table", None)
        if callable(open_table):
            open_table(spec, expected, title)
