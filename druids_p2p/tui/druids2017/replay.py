"""A Druids (2017) table in words (what each event says in the log) and `druids replay RECORD`.

As for Druids (2004), the words a table's log uses and the viewer that steps through a record
sit together; the status line is read from the screen's state."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from druids_p2p.audit.replay import ReplayedGame
from druids_p2p.games.druids2017 import Game, GameOptions
from druids_p2p.games.druids2017.cards import COLOUR_NAMES, is_gaia_move
from druids_p2p.games.druids2017.notation import Move
from druids_p2p.games.druids2017.rules import ENDED_FIVE_DOMAINS
from druids_p2p.games.seam import GameMove
from druids_p2p.tui.druids2017.cards import Hand, card_text, domain_text, move_text
from druids_p2p.tui.druids2017.panels import PlayersPanel, ScoresPanel, TrickPanel
from druids_p2p.tui.druids2017.snapshot import TableSnapshot, snapshot_from_game
from druids_p2p.tui.game_ui import KeysFooter
from druids_p2p.tui.widgets import WrapLog, name_text, plain, who

# What each event of the table says in the log and changes on the screen, and the status line
# read from the screen's state: split from ``table.py`` to keep it under 500 lines.


class TableScreenState(Protocol):
    """The table screen as its event log and status line see it (``TableScreen`` is one)."""

    snapshot: TableSnapshot | None
    expected: tuple[str, ...]
    """Names of the players waited for before seating (local bots)."""
    joined: list[str]
    players: int
    away: dict[str, float]
    """Who is away, and since when (``time.monotonic``)."""
    rejoined: dict[str, float]
    slow: set[str]
    """Who keeps sending its automatic messages late (the peer's ``slow`` event)."""
    turn_since: float
    record: str | None
    result: dict[str, Any] | None
    stopped: str | None
    blame: int | None
    finished: bool
    awaiting: bool
    """A move was sent; waiting for the peer to take it."""
    trick_held: bool
    phase_text: str

    def seat_name(self, seat: object) -> str:
        """A seat's name, ``you`` for this seat."""
        ...

    def by_name(self, values: object) -> str:
        """Per-seat values (scores, totals) as ``name value`` pairs."""
        ...

    def show_end(self, result: dict[str, Any]) -> None:
        """Show the end of the game (or queue it behind the round's summary)."""
        ...


EVENT_STYLE = {
    "aborted": "bold red",
    "bot_failed": "bold red",
    "warning": "yellow",
    "away": "yellow",
    "rejoined": "cyan",
    "slow": "magenta",
    "round_ended": "bold",
    "game_over": "bold green",
}


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _move_line(table: TableScreenState, event: dict[str, Any]) -> Text:
    snap = table.snapshot
    seat = event.get("seat")
    line = name_text(snap, int(seat)) if snap is not None and seat is not None else Text("?")
    line.append(" play " if snap is not None and seat == snap.my_seat else " plays ")
    try:
        variant = snap is not None and snap.variant
        line.append_text(move_text(Move.from_token(str(event.get("move"))), variant))
    except ValueError:
        line.append(str(event.get("move")))
    return line


def describe(table: TableScreenState, kind: str, event: dict[str, Any]) -> Text | str | None:
    """The log line of one event (None: nothing to log), updating the screen's state."""
    snap = table.snapshot
    if kind == "lobby":
        table.players = int(event.get("players", table.players))
        table.joined = []
        table.phase_text = "Waiting for players to join…"
        return f"table open; lobby at {event.get('lobby')} — waiting for players"
    if kind == "joined":
        table.joined.append(str(event.get("name")))
        return f"{event.get('name')} joined ({event.get('seats')}/{table.players})"
    if kind == "refused":
        return f"refused {event.get('name')} (fingerprint {event.get('fingerprint')})"
    if kind == "joining":
        table.phase_text = "Asking the host for a seat…"
        return f"asking for a seat at '{event.get('table')}' (host {event.get('host')})"
    if kind == "rejoining":
        return f"rejoining the unfinished table in {event.get('folder')}"
    if kind == "seated" and "record" in event:
        table.record = str(event["record"])
        table.phase_text = "Seated: fixing the seat order by coin flip…"
        return f"seated; game record: {table.record}"
    if kind == "round_started":
        r = int(event.get("round", 0)) + 1
        rounds = snap.rounds if snap is not None else "?"
        table.phase_text = f"Round {r} of {rounds}: shuffling and dealing (mental cards)…"
        return f"round {r}: shuffling and dealing"
    if kind == "move":
        return _move_line(table, event)
    if kind == "round_ended":
        r = int(event.get("round", 0)) + 1
        how = "five domains" if event.get("ended_by") == ENDED_FIVE_DOMAINS else "all played"
        table.phase_text = f"Round {r} over ({how}): revealing and auditing the deal…"
        return f"round {r} over ({how}) — scores: {table.by_name(event.get('scores'))}"
    if kind == "game_over":
        table.finished = True
        winners = ", ".join(table.seat_name(w) for w in event.get("winners") or ())
        return f"game over — totals: {table.by_name(event.get('totals'))}; won by {winners}"
    if kind == "away":
        name = str(event.get("name"))
        table.away[name] = time.monotonic() - float(event.get("seconds", 0.0))
        table.rejoined.pop(name, None)
        return f"{name} is away (silent for {event.get('seconds')} s); the table waits"
    if kind == "rejoined":
        name = str(event.get("name"))
        since = table.away.pop(name, None)
        table.rejoined[name] = time.monotonic()
        gone = f" after {clock(time.monotonic() - since)}" if since is not None else ""
        return f"{name} is back{gone}"
    if kind in ("slow", "not_slow"):
        name = str(event.get("name"))
        if kind == "slow":
            table.slow.add(name)
        else:
            table.slow.discard(name)
        return str(event.get("text"))
    if kind == "aborted":
        reason = str(event.get("reason"))
        blame = event.get("blame")
        table.blame = int(blame) if isinstance(blame, int) else None
        blamed = ""
        if table.blame is not None and snap is not None:
            blamed = f" — blamed: seat {table.blame} ({snap.name(table.blame)})"
        table.stopped = f"{reason}{blamed}"
        return f"TABLE STOPPED: {reason}{blamed}"
    if kind == "result":
        table.result = {k: v for k, v in event.items() if k != "event"}
        if event.get("record"):
            table.record = str(event["record"])
        table.finished = bool(event.get("finished"))
        table.show_end(event)
        return f"game record: {table.record}"
    if kind in ("warning", "bot_failed"):
        return str(event.get("text"))
    text = event.get("text")
    return str(text) if text else None


def took_line(table: TableScreenState) -> Text | None:
    """``rule-2 takes the trick`` (``you take``) for the trick just completed."""
    snap = table.snapshot
    view = snap.view if snap is not None else None
    if snap is None or view is None or not view.tricks:
        return None
    winner = view.tricks[-1][2]
    line = name_text(snap, winner)
    line.append(" take the trick" if who(snap, winner) == "you" else " takes the trick")
    return line


REJOINED_SHOWN_S = 10.0
"""How long a player who came back is shown as rejoined."""


def seat_states(table: TableScreenState) -> dict[int, Text]:
    snap = table.snapshot
    if snap is None:
        return {}
    now = time.monotonic()
    out: dict[int, Text] = {}
    view = snap.view
    for seat, name in enumerate(snap.names):
        if table.stopped is not None and seat == table.blame:
            out[seat] = Text("blamed", style="bold red")
        elif name in table.away:
            out[seat] = Text(f"away {clock(now - table.away[name])}", style="bold yellow")
        elif name in table.rejoined and now - table.rejoined[name] < REJOINED_SHOWN_S:
            out[seat] = Text("rejoined", style="bold cyan")
        elif name in table.slow:
            out[seat] = Text("slow", style="bold magenta")
        elif view is not None and view.to_move == seat and not view.round_over:
            out[seat] = Text(f"to move {clock(now - table.turn_since)}", style="green")
        else:
            out[seat] = Text("connected", style="dim")
    return out


def connecting_text(table: TableScreenState) -> Text:
    """Before the seat order is fixed: who has joined, who is still connecting."""
    text = Text("Players: ")
    named = [n for n in table.expected if not n.startswith("(")]
    for name in named:
        if name in table.joined:
            text.append(f"{name} (joined)  ", style="green")
        else:
            text.append(f"{name} (connecting…)  ", style="yellow")
    for name in table.joined:
        if name not in named:
            text.append(f"{name} (joined)  ", style="green")
    waiting_bots = sum(1 for n in named if n not in table.joined)
    open_seats = table.players - 1 - len(table.joined) - waiting_bots if table.players else 0
    if open_seats > 0:
        text.append(f"{open_seats} seat(s) open for LAN players", style="bold")
    return text


def status_text(table: TableScreenState) -> Text:
    snap = table.snapshot
    if table.stopped is not None:
        return Text(f"■ Table stopped: {table.stopped}")
    if table.finished and snap is not None:
        names = ", ".join(who(snap, s) for s in snap.winners or ())
        return Text(f"Game over — winner{'s' if len(snap.winners or ()) > 1 else ''}: {names}")
    view = snap.view if snap is not None else None
    if snap is None or view is None or view.round_over or snap.phase != "play":
        return Text(table.phase_text)
    elapsed = clock(time.monotonic() - table.turn_since)
    rnd = f"Round {snap.round_number}/{snap.rounds} · "
    if table.trick_held and view.tricks:
        taker = who(snap, view.tricks[-1][2])
        return Text(f"{rnd}Trick {len(view.tricks)} taken by {taker} — any key to go on")
    if snap.my_turn and not table.awaiting:
        text = Text(f"{rnd}▶ Your turn ({elapsed})", style="bold")
        if view.pending_pile_choice:
            text.append(" — your Sickle won: choose the pile it removes (p)")
        elif any(is_gaia_move(m) for m in view.legal):
            text.append(" — lead Gaia and name a domain (p)")
        elif view.lead_domain >= 0:
            text.append(" — led: ")
            text.append_text(domain_text(view.lead_domain))
        return text
    if table.awaiting:
        return Text(f"{rnd}sending your move…")
    if view.to_move is None:
        return Text(f"{rnd}waiting for the Gaia holder to lead ({elapsed})")
    text = Text(f"{rnd}Waiting for {snap.name(view.to_move)} ({elapsed})")
    if view.lead_domain >= 0:
        text.append(f" — led: {COLOUR_NAMES[view.lead_domain]}")
    return text


# ``druids replay RECORD``: a finished (or stopped) game stepped through trick by trick.
#
# The game is replayed through the rules engine from the record (``audit/replay.py``), and each
# step is a frozen :class:`TableSnapshot` seen from the record's owner, shown with the very widgets
# of the live table (players and piles, the trick, scores, the owner's hand): what that player saw
# when the trick was taken. At the end of each round, once the reveal has made every hand known,
# every seat's hand as dealt is shown too. Keys: → / n next trick, ← / p previous, PgDn / PgUp next
# or previous round, Home / End first or last, q quits.


_ENDED = {"five_domains": "a fifth domain was won", "hands_empty": "the hands are played out"}


@dataclass(frozen=True)
class Step:
    """One position of the replay: after a trick (or the deal, or a round's end)."""

    round: int
    caption: str
    snapshot: TableSnapshot | None
    plays: tuple[tuple[str, GameMove], ...] = ()
    """(player, move) since the step before, for the log."""
    hands: tuple[tuple[int, ...], ...] | None = None
    """Every seat's hand as dealt: only at a round's end, after its reveal."""


def build_steps(game: ReplayedGame) -> list[Step]:
    """Every step of the record, in order (bounded: one per trick, deal and round end)."""
    names = game.names
    viewer = game.owner if game.owner is not None else 0
    o = game.options
    engine = Game(GameOptions(players=o.players, variant=o.variant, rounds=o.rounds))
    steps: list[Step] = []
    for rnd in game.rounds:
        label = f"Round {rnd.number + 1}"
        if rnd.hands is None:
            steps.append(
                Step(
                    rnd.number,
                    f"{label}: not revealed — the record stops before this round's reveal, "
                    f"so its hands are unknown ({len(rnd.moves)} move(s) recorded)",
                    None,
                    tuple((names[s], m) for s, m in rnd.moves),
                )
            )
            break
        engine.start_round([list(h) for h in rnd.hands])
        steps.append(Step(rnd.number, f"{label}: dealt", _seen(engine, viewer, names)))
        plays: list[tuple[str, GameMove]] = []
        tricks = 0
        stopped = False
        for seat, move in rnd.moves:
            reason = None if engine.to_move == seat else "out of turn"
            reason = reason or engine.check(move.id)
            if reason is not None:
                steps.append(
                    Step(
                        rnd.number,
                        f"{label}: {names[seat]}'s {move.token()} is illegal ({reason}): "
                        "the replay stops here (see 'druids audit')",
                        _seen(engine, viewer, names),
                        tuple(plays),
                    )
                )
                stopped = True
                break
            engine.play(move.id)
            plays.append((names[seat], move))
            done = len(engine.view(viewer).tricks)
            if done > tricks or engine.round_over:
                tricks = done
                over = engine.round_over
                caption = f"{label}, trick {tricks}"
                if over:
                    how = _ENDED.get(str(engine.round.ended_by if engine.round else ""), "")
                    caption = f"{label} over" + (f": {how}" if how else "") + " — every hand shown"
                snap = _seen(engine, viewer, names)
                steps.append(
                    Step(rnd.number, caption, snap, tuple(plays), rnd.hands if over else None)
                )
                plays = []
        if stopped:
            break
        if plays:  # the record ends inside a trick
            caption = f"{label}: the record ends in trick {tricks + 1}"
            steps.append(Step(rnd.number, caption, _seen(engine, viewer, names), tuple(plays)))
        if not engine.round_over:
            break
    if not steps:
        steps.append(Step(0, "the table was never seated: no round to show", None))
    return steps


def _seen(engine: Game, seat: int, names: tuple[str, ...]) -> TableSnapshot:
    """The table as ``seat`` saw it: its own hand, everyone's piles; never a move to make."""
    return replace(snapshot_from_game(engine, seat, names), my_turn=False, reasons={})


def hands_lines(names: Sequence[str], hands: Sequence[Sequence[int]]) -> Text:
    out = Text()
    for seat, hand in enumerate(hands):
        if seat:
            out.append("\n")
        out.append_text(plain(f"{names[seat]:<14} ", "bold"))
        for i, card in enumerate(sorted(hand)):
            if i:
                out.append(" ")
            out.append_text(card_text(card))
    return out


class ReplayScreen(Screen[None]):
    DEFAULT_CSS = """
    ReplayScreen { layout: vertical; }
    ReplayScreen #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    ReplayScreen #step { height: auto; padding: 0 1; text-style: bold; }
    ReplayScreen #middle { height: auto; }
    ReplayScreen #revealed { height: auto; border: round $warning; padding: 0 1; }
    ReplayScreen #log { height: 1fr; min-height: 3; border: round $primary-darken-2; }
    """
    AUTO_FOCUS = None  # the keys step the replay; nothing here is played

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "next trick", priority=True),
        Binding("left,p", "step(-1)", "previous trick", priority=True),
        Binding("pagedown", "round(1)", "next round"),
        Binding("pageup", "round(-1)", "previous round"),
        Binding("home", "go(0)", "first", show=False),
        Binding("end", "go(-1)", "last", show=False),
        Binding("q,escape,ctrl+c", "leave", "quit"),
    ]

    def __init__(self, game: ReplayedGame) -> None:
        super().__init__()
        self.game = game
        self.steps = build_steps(game)
        self.index = 0

    def compose(self) -> ComposeResult:
        game = self.game
        who = game.names[game.owner] if game.owner is not None else game.names[0]
        seen = f"as {who} saw it" if game.owner is not None else f"from seat 0 ({who}; --seat N)"
        verdict = "audit ok" if game.audit.ok else f"audit: {game.audit.problem}"
        # The names (and the audit's words about them) are the players' own: never markup.
        yield Static(
            plain(f"Druids (2017) — replay of {game.path.name}, {seen} · {verdict}"), id="title"
        )
        yield Static("", id="step")
        yield PlayersPanel()
        with Horizontal(id="middle"):
            yield TrickPanel()
            yield ScoresPanel()
        hand = Hand(replay=True)
        hand.border_title = plain(f"{who}'s hand")
        yield hand
        revealed = Static("", id="revealed")
        revealed.border_title = "Every hand, as dealt (revealed at the round's end)"
        yield revealed
        log = WrapLog()
        log.border_title = "Plays"
        log.can_focus = False
        yield log
        yield KeysFooter()

    async def on_mount(self) -> None:
        await self.show_step()

    @property
    def step(self) -> Step:
        return self.steps[self.index]

    async def show_step(self) -> None:
        step = self.step
        where = f"[{self.index + 1}/{len(self.steps)}] "
        self.query_one("#step", Static).update(plain(where + step.caption))
        snap = step.snapshot
        self.query_one(PlayersPanel).show(snap, {})
        self.query_one(TrickPanel).show(snap, replay=True)
        self.query_one(ScoresPanel).show(snap)
        await self.query_one(Hand).show(snap)
        revealed = self.query_one("#revealed", Static)
        revealed.display = step.hands is not None
        if step.hands is not None:
            revealed.update(hands_lines(self.game.names, step.hands))
        log = self.query_one(WrapLog)
        log.forget()
        log.add(plain(step.caption, "bold"))
        for name, move in step.plays:
            line = plain(f"  {name:<14} ")
            line.append_text(move_text(move, self.game.options.variant))
            log.add(line)

    async def action_step(self, delta: int) -> None:
        await self.action_go(max(0, min(len(self.steps) - 1, self.index + delta)))

    async def action_round(self, delta: int) -> None:
        """To the first step of the next round, or of this / the previous one."""
        r = self.step.round
        if delta > 0:
            later = [i for i, s in enumerate(self.steps) if s.round > r]
            target = later[0] if later else len(self.steps) - 1
        else:
            start = next(i for i, s in enumerate(self.steps) if s.round == r)
            if self.index == start and r > 0:
                start = next(i for i, s in enumerate(self.steps) if s.round == r - 1)
            target = start
        await self.action_go(target)

    async def action_go(self, index: int) -> None:
        self.index = index % len(self.steps)
        await self.show_step()

    def action_leave(self) -> None:
        self.app.exit()


class ReplayApp(App[None]):
    TITLE = "Druids replay"

    def __init__(self, game: ReplayedGame) -> None:
        super().__init__()
        self.game = game

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.game))
