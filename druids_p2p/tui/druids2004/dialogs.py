"""The Druids (2004) table's dialogs: a ritual told step by step, the help, the end, leaving. A
ritual changes the table faster than a log line can tell, so its results open one step per key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from druids_p2p.games.druids2004.cards import (
    KIND_NAMES,
    format_card,
    place_kind,
    servant_owner,
)
from druids_p2p.games.druids2004.ruleset import ENDS
from druids_p2p.games.druids2004.setup import RitualDone
from druids_p2p.tui.druids2004.places import share_line
from druids_p2p.tui.widgets import CHAT_KEY, plain

_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 96; height: auto; max-height: 100%; border: thick $primary;
    background: $surface; padding: 0 2;
}}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} .hint {{ color: $text-muted; margin-top: 1; }}
"""


def _cards(cards: Sequence[int]) -> str:
    return " ".join(format_card(c) for c in cards) or "none"


def ritual_steps(ritual: RitualDone, name: Callable[[int], str]) -> list[str]:
    """The ritual in the order it happens, one line a step (``name`` names a seat)."""
    kind = KIND_NAMES[place_kind(ritual.place)]
    gems = ", ".join(f"{format_card(g)} ({name(s)})" for s, g in ritual.gems) or "none"
    servants = ", ".join(f"{format_card(c)} ({name(servant_owner(c))})" for c in ritual.servants)
    steps = [
        f"Revealed — gems: {gems}; servants: {servants}",
        f"{len(ritual.amulets)} {kind} gem(s) become amulets: {_cards(ritual.amulets)}; "
        f"the other gems leave the game: {_cards(ritual.discarded)}",
    ]
    for i, share in enumerate(ritual.shares):
        steps.append(share_line(i, share, ritual, name, ritual.shares[:i]))
    if ritual.ended is not None:
        steps.append(f"The game ends: {ENDS.get(ritual.ended, ritual.ended)}")
        return steps
    back = (
        f"servants back into their reserves: {_cards(ritual.returned)}"
        if ritual.returned
        else "servants leave the game"
    )
    turned = (
        f"{format_card(ritual.turned)} is turned into place {ritual.slot + 1}"
        if ritual.turned is not None
        else f"the supply is empty: place {ritual.slot + 1} stays empty"
    )
    steps.append(f"The place leaves the game; {back}; {turned}")
    return steps


class RitualSteps(ModalScreen[None]):
    """One ritual, one step more per space/enter; closed only once every step is shown."""

    DEFAULT_CSS = _CSS.format(name="RitualSteps")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,enter,right", "next", "next step / close", show=True),
        Binding("escape", "all", "show all / close", show=True),
    ]

    def __init__(self, ritual: RitualDone, name: Callable[[int], str]) -> None:
        super().__init__()
        self.ritual = ritual
        self.steps = ritual_steps(ritual, name)
        self.shown = 1
        kind = KIND_NAMES[place_kind(ritual.place)]
        self.title_text = (
            f"Ritual on place {ritual.slot + 1}: {format_card(ritual.place)} ({kind}), "
            f"announced by {name(ritual.seat)}"
        )

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.title_text), classes="title")  # names the announcer
            yield Static(id="ritual-steps")
            yield Static(id="ritual-hint", classes="hint")

    def on_mount(self) -> None:
        self._refresh()

    @property
    def complete(self) -> bool:
        return self.shown >= len(self.steps)

    def _refresh(self) -> None:
        self.query_one("#ritual-steps", Static).update(plain("\n".join(self.steps[: self.shown])))
        hint = (
            "enter: close"
            if self.complete
            else (
                f"step {self.shown}/{len(self.steps)} · space/enter: next step · escape: all steps"
            )
        )
        self.query_one("#ritual-hint", Static).update(hint)

    def action_next(self) -> None:
        if self.complete:
            self.dismiss(None)
            return
        self.shown += 1
        self._refresh()

    def action_all(self) -> None:
        if self.complete:
            self.dismiss(None)
            return
        self.shown = len(self.steps)
        self._refresh()


class RitualHistory(ModalScreen[None]):
    """Every ritual of the game so far, each with all its steps (key ``l``)."""

    DEFAULT_CSS = _CSS.format(name="RitualHistory")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,l,q", "close", "close")]

    def __init__(self, rituals: Sequence[RitualDone], name: Callable[[int], str]) -> None:
        super().__init__()
        self.lines: list[str] = []
        for r in rituals:
            self.lines.append(f"Place {r.slot + 1} {format_card(r.place)}, by {name(r.seat)}:")
            self.lines.extend(f"  {step}" for step in ritual_steps(r, name))
        if not self.lines:
            self.lines.append("No ritual yet.")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Rituals of this game", classes="title")
            yield Static(plain("\n".join(self.lines)), id="ritual-history")
            yield Static("escape: close", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


KEYS: tuple[tuple[str, str], ...] = (
    ("← →", "choose a card in your hand"),
    (
        "1-6",
        "play the chosen card face down onto place 1-6 (--confirm-plays: the first press "
        "marks it, the same key or enter plays it, any other key cancels)",
    ),
    ("r, then 1-6", "announce a ritual on that place (before your first card; ★ marks them)"),
    (
        "x",
        "discard the chosen gem face down (after your plays, before drawing; marked first "
        "with --confirm-plays)",
    ),
    ("g / s", "draw one card: from the gem pile / from your servant reserve"),
    ("enter", "end your turn (stop drawing); with a card marked, play it"),
    ("space / enter", "in a ritual: the next step; escape shows every step"),
    ("l", "every ritual of the game, step by step"),
    (
        "a",
        "at a table of you and your bots (the coach on): what the strongest bot would play "
        "here, and why",
    ),
    ("c", "at a table of peers, also over a ritual: chat (enter says the line, escape closes)"),
    ("?", "this help: the signs on the board, the keys, the rules"),
    ("q / ctrl+c", "quit (asks first while the game is on)"),
    ("end screen: r", "rematch: the same players at a new table (the evening's running scores)"),
)

RULES: tuple[str, ...] = (
    "A turn: an optional ritual, then two cards (a gem and a servant, or two gems; never two "
    "servants), an optional discard, then draws up to 7 cards, one at a time.",
    "A ritual needs a place with 3 cards or more, one a servant. Its kind's gems become amulets.",
    "Servants take in value order, lowest first, each as many as its value; the last takes all "
    "that remain. Each amulet is 1 point to the servant's owner.",
    "Equal servants take in turn order, starting with the player who announced the ritual; a "
    "servant that finds no amulet left takes none (+0).",
    "The game ends when only one place is left without a ritual; the highest score wins and a tie "
    "shares the win.",
    "The score column shows 12 scores and moves up as pawns pass its top, but not while another "
    "pawn stands on its bottom card: then the game ends and the moving player alone wins.",
)


class GameOver2004(ModalScreen[None]):
    """The final scores and who won, the evening's running scores; enter leaves the table,
    ``r`` (when the app can) seats the same players again."""

    DEFAULT_CSS = _CSS.format(name="GameOver2004")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,q", "close", "leave"),
        Binding("r", "rematch", "rematch"),
    ]

    def __init__(
        self, lines: Sequence[str], evening: Sequence[str] = (), rematch: bool = False
    ) -> None:
        super().__init__()
        self.lines = tuple(lines)
        self.evening = tuple(evening)
        self.rematch = rematch

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Game over", classes="title")
            yield Static(plain("\n".join(self.lines)), id="game-over")
            if len(self.evening) > 1:
                yield Static(plain("\n" + "\n".join(self.evening)), id="evening")  # names
            hint = "enter: leave the table"
            if self.rematch:
                hint += " · r: rematch (the same players, a new table)"
            yield Static(hint, classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_rematch(self) -> None:
        rematch = getattr(self.app, "action_rematch", None)
        if self.rematch and callable(rematch):
            rematch()
        else:
            self.app.bell()


class ConfirmLeave(ModalScreen[bool]):
    DEFAULT_CSS = _CSS.format(name="ConfirmLeave")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "leave"),
        Binding("n,escape", "answer(False)", "stay"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Leave the game? (y / n)", classes="title")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)


class TalkRitualSteps(RitualSteps):
    """A ritual told at a table of peers: ``c`` opens the chat box over it."""

    BINDINGS: ClassVar[list[BindingType]] = [CHAT_KEY]


class TalkRitualHistory(RitualHistory):
    BINDINGS: ClassVar[list[BindingType]] = [CHAT_KEY]


class TalkGameOver2004(GameOver2004):
    BINDINGS: ClassVar[list[BindingType]] = [CHAT_KEY]
