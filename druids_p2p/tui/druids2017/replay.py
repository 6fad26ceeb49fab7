"""``druids replay RECORD``: a finished (or stopped) game stepped through trick by trick.

The game is replayed through the rules engine from the record (``audit/replay.py``), and each
step is a frozen :class:`TableSnapshot` seen from the record's owner, shown with the very widgets
of the live table (players and piles, the trick, scores, the owner's hand): what that player saw
when the trick was taken. At the end of each round, once the reveal has made every hand known,
every seat's hand as dealt is shown too. Keys: → / n next trick, ← / p previous, PgDn / PgUp next
or previous round, Home / End first or last, q quits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from druids_p2p.audit.replay import ReplayedGame
from druids_p2p.games.druids2017 import Game, GameOptions
from druids_p2p.games.seam import GameMove
from druids_p2p.tui.druids2017.cards import Hand, card_text, move_text
from druids_p2p.tui.druids2017.panels import PlayersPanel, ScoresPanel, TrickPanel
from druids_p2p.tui.druids2017.snapshot import TableSnapshot, snapshot_from_game
from druids_p2p.tui.widgets import WrapLog, plain

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
        yield Footer()

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
