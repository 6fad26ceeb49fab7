"""How Druids (2017)'s cards and moves look, the warnings a player wants, and your hand of them.

All of it is computed from the seat's view alone; the hand groups the cards by domain, the
playable ones bright and the others dimmed with their reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    GAIA,
    MISTLETOES,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    N_VALUES,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    card_domain,
)
from druids_p2p.games.druids2017.notation import format_card
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import GameMove
from druids_p2p.tui.druids2017.snapshot import TableSnapshot
from druids_p2p.tui.game_ui import show_text
from druids_p2p.tui.widgets import plain

# How Druids (2017)'s cards and moves look (one colour per domain, distinct specials), and the
# warnings a player wants, computed from their view alone.


DOMAIN_COLOURS: tuple[str, ...] = ("#3cb371", "#e6c229", "#e0474c", "#4a90e2", "#b07ce8")
"""Green, yellow, red, blue, violet (G Y R B V)."""
GAIA_COLOUR = "#d2943c"
MISTLETOE_COLOUR = "#c6e5b3"
SICKLE_COLOUR = "#f0e0a0"
SPECIALS = N_DOMAINS
"""Group index of Gaia, Mistletoe and Sickle in a hand."""
GROUP_LABELS: tuple[str, ...] = (*COLOUR_NAMES, "special")


def card_colour(card: int) -> str:
    domain = card_domain(card)
    if domain >= 0:
        return DOMAIN_COLOURS[domain]
    if card == GAIA:
        return GAIA_COLOUR
    return MISTLETOE_COLOUR if card in MISTLETOES else SICKLE_COLOUR


def card_group(card: int) -> int:
    """0..4 for the domains, ``SPECIALS`` for Gaia, Mistletoe and Sickle."""
    domain = card_domain(card)
    return domain if domain >= 0 else SPECIALS


def card_class(card: int) -> str:
    """CSS class of a card chip: ``dom-G`` … ``dom-V``, ``gaia``, ``mistletoe``, ``sickle``."""
    domain = card_domain(card)
    if domain >= 0:
        return f"dom-{DOMAINS[domain]}"
    if card == GAIA:
        return "gaia"
    return "mistletoe" if card in MISTLETOES else "sickle"


def card_text(card: int | None, size: int | None = None) -> Text:
    """A card token in its colour (``—`` for none); with a pile size: ``R7 (2)``."""
    if card is None:
        return Text("—", style="dim")
    text = Text(format_card(card), style=f"bold {card_colour(card)}")
    if size is not None:
        text.append(f" ({size})", style="dim")
    return text


def move_text(move: GameMove, variant: bool = False) -> Text:
    """A move (the game's value, carried from where its text entered) in colour: ``R7``,
    ``Gaia → red``, ``Mistletoe``, ``Pile:B``; at a ``variant`` table Gaia's lead names its
    side, the dark one too (``Gaia → violet (dark side)``)."""
    token = move.token()
    if move.id < N_DOMAIN_CARDS:
        return card_text(move.id)
    if token.startswith("Gaia:"):
        parts = token.split(":")
        domain = DOMAINS.index(parts[1])
        text = Text("Gaia", style=f"bold {GAIA_COLOUR}")
        text.append(" → ")
        text.append(COLOUR_NAMES[domain], style=f"bold {DOMAIN_COLOURS[domain]}")
        if len(parts) > 2:
            text.append(" (light side)", style="italic")
        elif variant:
            text.append(" (dark side)", style="italic")
        return text
    if token.startswith("Pile:"):
        domain = DOMAINS.index(token[5])
        return Text(f"Sickle removes the {COLOUR_NAMES[domain]} pile", style="italic")
    colour = MISTLETOE_COLOUR if token == "Mistletoe" else SICKLE_COLOUR
    return Text(token, style=f"bold {colour}")


def domain_text(domain: int) -> Text:
    return Text(COLOUR_NAMES[domain], style=f"bold {DOMAIN_COLOURS[domain]}")


@dataclass(frozen=True)
class Warning:
    """One warning: ``seat`` is whom it is about; ``urgent`` when it bears on the trick now."""

    kind: str
    """``four_domains`` or ``sickle``."""
    seat: int
    domain: int
    """The missing fifth domain (four_domains) or the pile the Sickle would remove (sickle)."""
    urgent: bool = False


def missing_domain(view: PlayerView, seat: int) -> int | None:
    """The one domain ``seat`` has no pile of, if it holds piles of exactly four."""
    tops = view.pile_tops[seat]
    missing = [d for d in range(N_DOMAINS) if tops[d] is None]
    return missing[0] if len(missing) == 1 else None


def trick_leader_now(view: PlayerView) -> int | None:
    """Who takes the trick being played if nobody else plays: the highest card of the led
    domain (Gaia counts 0 of its named domain), else its leader; None with no trick on."""
    if not view.trick:
        return None
    led = view.lead_domain
    winner, best = view.trick[0][0], -1
    for seat, move in view.trick:
        if move < N_DOMAIN_CARDS:
            value = move % N_VALUES + 1
            if move // N_VALUES == led and value > best:
                winner, best = seat, value
        elif move < PLAY_MISTLETOE and best < 0:  # Gaia: 0 of its named domain
            winner, best = seat, 0
    return winner


def sickle_victim_pile(view: PlayerView, seat: int) -> int | None:
    """The domain of the pile a Sickle in the trick would remove if ``seat`` took the trick as it
    stands: the trick's domain cards are stacked first (the lowest on top; light side the
    highest), then the highest top goes. None if there is no Sickle or no pile; on a tie, the
    first tied domain (the player would choose)."""
    if not any(move == PLAY_SICKLE for _, move in view.trick):
        return None
    tops = list(view.pile_tops[seat])
    for d in range(N_DOMAINS):
        cards = [m for _, m in view.trick if m < N_DOMAIN_CARDS and card_domain(m) == d]
        if cards:
            tops[d] = max(cards) if view.light else min(cards)
    if all(t is not None for t in tops):
        return None  # a fifth domain: the round ends at −3, the Sickle is ignored
    held = [(t % N_VALUES, d) for d, t in enumerate(tops) if t is not None]
    if not held:
        return None
    best = max(v for v, _ in held)
    return next(d for v, d in held if v == best)


def warnings(view: PlayerView) -> list[Warning]:
    """Every warning for the table as ``view.seat`` sees it, this seat's own first."""
    out: list[Warning] = []
    if view.round_over:
        return out
    trick_domains = {card_domain(m) for _, m in view.trick if m < N_DOMAIN_CARDS}
    if view.lead_domain >= 0:
        trick_domains.add(view.lead_domain)
    seats = [view.seat, *(s for s in range(view.players) if s != view.seat)]
    for seat in seats:
        missing = missing_domain(view, seat)
        if missing is not None:
            out.append(Warning("four_domains", seat, missing, urgent=missing in trick_domains))
    victim = sickle_victim_pile(view, view.seat)
    if victim is not None:
        out.append(Warning("sickle", view.seat, victim, urgent=True))
    return out


def warning_line(warning: Warning, names: tuple[str, ...], me: int) -> str:
    """One warning in words, ``you`` for this seat."""
    you = warning.seat == me
    who = "you" if you else (names[warning.seat] if warning.seat < len(names) else "?")
    colour = COLOUR_NAMES[warning.domain]
    if warning.kind == "four_domains":
        holds = "You hold" if you else f"{who} holds"
        line = (
            f"{holds} four domains: the next trick taken with a {colour} card ends the round "
            f"at −3 for {who}"
        )
        if warning.urgent:
            line += f" — this trick has {colour} in it"
        return line
    return (
        f"A Sickle is in this trick: if you take it, it removes your {colour} pile (your highest)"
    )


# Your hand, grouped by domain: playable cards bright, the others dimmed with their reason.


def _chip_css() -> str:
    colours = {f"dom-{d}": c for d, c in zip(DOMAINS, DOMAIN_COLOURS, strict=True)}
    colours |= {"gaia": GAIA_COLOUR, "mistletoe": MISTLETOE_COLOUR, "sickle": SICKLE_COLOUR}
    rules = []
    for cls, colour in colours.items():
        rules.append(f"CardChip.{cls}.playable {{ background: {colour}; color: #101010; }}")
        rules.append(f"CardChip.{cls}.dimmed {{ color: {colour} 45%; }}")
    return "\n".join(rules)


class CardChip(Static, can_focus=True):
    """One card: focus it to read why it can (not) be played; click, enter or space plays it."""

    DEFAULT_CSS = """
    CardChip { width: auto; height: 1; padding: 0 1; margin: 0 1 0 0; }
    CardChip.playable { text-style: bold; }
    CardChip.dimmed { background: $surface; text-style: none; }
    CardChip.gaia, CardChip.mistletoe, CardChip.sickle { text-style: bold italic; }
    CardChip:focus { text-style: bold reverse; }
    CardChip.marked { text-style: bold reverse underline; }
    CardChip.dimmed:focus { text-style: reverse; }
    """ + _chip_css()

    class Chosen(Message):
        def __init__(self, card: int) -> None:
            super().__init__()
            self.card = card

    class Focused(Message):
        def __init__(self, card: int) -> None:
            super().__init__()
            self.card = card

    def __init__(self, card: int, playable: bool) -> None:
        state = "playable" if playable else "dimmed"
        super().__init__(
            format_card(card), id=f"card-{card}", classes=f"{card_class(card)} {state}"
        )
        self.card = card
        self.playable = playable

    def on_click(self) -> None:
        self.focus()
        self.post_message(self.Chosen(self.card))

    def on_focus(self) -> None:
        self.post_message(self.Focused(self.card))


class HandRow(Horizontal):
    DEFAULT_CSS = """
    HandRow { height: 1; }
    HandRow > .label { width: 9; color: $text-muted; }
    """


class Hand(Vertical):
    """Six rows (green, yellow, red, blue, violet, specials) and a hint line."""

    DEFAULT_CSS = """
    Hand { height: auto; border: round $primary; padding: 0 1; }
    Hand.my-turn { border: round $success; }
    Hand #hand-rows { height: auto; }
    Hand #hint { height: 1; color: $text-muted; }
    Hand #hint.error { color: $error; text-style: bold; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "previous card", show=False),
        Binding("right", "step(1)", "next card", show=False),
        Binding("up", "row(-1)", "row above", show=False),
        Binding("down", "row(1)", "row below", show=False),
        Binding("enter,space", "play", "play", show=True),
        *(Binding(k, f"jump({i})", show=False) for i, k in enumerate("gyrbvs")),
    ]

    def __init__(self, replay: bool = False) -> None:
        """``replay``: a hand shown by the replay viewer: its cards are looked at, never
        played (no card takes the focus, no "play" key, no word about whose turn it is)."""
        super().__init__(id="hand")
        self.border_title = "Your hand"
        self.snapshot: TableSnapshot | None = None
        self._shown: tuple[tuple[int, bool], ...] | None = None
        self.replay = replay
        self.closed = replay
        """The table stopped or the person left: nothing more to play."""

    def compose(self) -> ComposeResult:
        yield Vertical(id="hand-rows")
        yield Static("", id="hint")

    # ------------------------------------------------------------------ content
    def chips(self) -> list[CardChip]:
        return list(self.query(CardChip))

    async def show(self, snapshot: TableSnapshot | None) -> None:
        """Re-render for a new snapshot, keeping the focused card if it is still held."""
        self.snapshot = snapshot
        view = snapshot.view if snapshot is not None else None
        cards = view.hand if view is not None else ()
        assert snapshot is not None or not cards
        shown = tuple((c, snapshot.playable(c)) for c in cards) if snapshot is not None else ()
        self._turn_border(bool(snapshot and snapshot.my_turn))
        if shown == self._shown:
            self._refresh_hint()
            return
        self._shown = shown
        focused = self.screen.focused if self.is_attached else None
        keep = focused.card if isinstance(focused, CardChip) else None
        groups: list[list[tuple[int, bool]]] = [[] for _ in GROUP_LABELS]
        for card, playable in shown:
            groups[card_group(card)].append((card, playable or self.replay))
        rows = self.query_one("#hand-rows", Vertical)
        if not rows.children:
            await rows.mount_all(self._new_row(i) for i in range(len(GROUP_LABELS)))
        for index, wanted in enumerate(groups):
            await self._fill_row(self.query_one(f"#row-{index}", HandRow), wanted)
        target = self._chip(keep) if keep is not None else None
        if snapshot is not None and snapshot.my_turn and (target is None or not target.playable):
            target = next((c for c in self.chips() if c.playable), target)
        if target is not None and (keep is not None or (snapshot and snapshot.my_turn)):
            self._focus(target)
        self.refresh_bindings()  # "play" is offered only on this seat's turn
        self._refresh_hint()

    def _new_row(self, index: int) -> HandRow:
        colour = DOMAIN_COLOURS[index] if index < SPECIALS else "white"
        label = GROUP_LABELS[index]
        label_widget = Static(f"[{colour}]{label}[/]", classes="label")
        return HandRow(label_widget, Static("—", classes="empty"), id=f"row-{index}")

    async def _fill_row(self, row: HandRow, wanted: list[tuple[int, bool]]) -> None:
        """The row's chips made ``wanted`` in place: a chip still held keeps its widget (and the
        focus) and only changes class when its playability does; a played card's chip alone is
        removed. Mounting the hand afresh restyled every chip of every row at each move."""
        chips = [c for c in row.children if isinstance(c, CardChip)]
        if [c.card for c in chips] != [card for card, _ in wanted]:
            held = {card for card, _ in wanted}
            gone = [c for c in row.children if not isinstance(c, CardChip) or c.card not in held]
            await row.remove_children([c for c in gone if not c.has_class("label")])
            kept = {c.card: c for c in chips if c.card in held}
            for position, (card, playable) in enumerate(wanted):
                if card not in kept:
                    chip = CardChip(card, playable)
                    chip.can_focus = not self.replay
                    await row.mount(
                        chip, before=position + 1 if position + 1 < len(row.children) else None
                    )
            if not wanted:
                await row.mount(Static("—", classes="empty"))
            chips = [c for c in row.children if isinstance(c, CardChip)]
        for chip, (_, playable) in zip(chips, wanted, strict=True):
            if chip.playable != playable:
                chip.playable = playable
                chip.update_classes({"playable": playable, "dimmed": not playable})  # one restyle

    def _turn_border(self, mine: bool) -> None:
        """The ``my-turn`` class, restyling the hand alone: only its border depends on it, and
        Textual's ``set_class`` restyles every row and chip under it too."""
        if self.has_class("my-turn") != mine:
            self.set_class(mine, "my-turn", update=False)
            if self.is_attached:
                self.app.stylesheet.update_nodes([self], animate=True)

    def _chip(self, card: int | None) -> CardChip | None:
        return next((c for c in self.chips() if c.card == card), None)

    def hint(self, text: str, error: bool = False) -> None:
        hint = self.query_one("#hint", Static)
        show_text(hint, plain(text))  # a refusal's reason is text, never markup
        hint.set_class(error, "error")

    def _refresh_hint(self) -> None:
        if self.replay:
            self.hint("")
            return
        focused = self.screen.focused if self.is_attached else None
        if isinstance(focused, CardChip):
            self.describe(focused.card)
        elif self.snapshot is not None and self.snapshot.my_turn:
            self.hint("Your turn: pick a card (arrows, tab or the mouse), enter to play")
        else:
            self.hint("")

    def describe(self, card: int) -> None:
        snapshot = self.snapshot
        token = format_card(card)
        if snapshot is None:
            self.hint(token)
            return
        reason = snapshot.reason(card)
        if reason is None:
            verb = "lead it, naming a domain" if token == "Gaia" else "play it"
            self.hint(f"{token}: playable — enter to {verb}")
        else:
            self.hint(f"{token}: {reason}")

    def on_card_chip_focused(self, message: CardChip.Focused) -> None:
        self.describe(message.card)

    # ------------------------------------------------------------------ keys
    def _focus(self, chip: CardChip) -> None:
        """Focus ``chip`` now. ``Widget.focus`` only schedules it: a key already queued behind
        the one that moved the focus (``r`` then enter, typed fast or arriving in one burst
        over SSH) then played the card focused before."""
        if self.is_attached:
            self.screen.set_focus(chip)
        else:
            chip.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``play`` is offered while the game is on (off turn it explains why not), never
        once it is over or stopped."""
        if action == "play":
            snap = self.snapshot
            if snap is None or snap.view is None or self.closed:
                return False
            return snap.my_turn or not (snap.view.game_over or snap.phase == "done")
        return True

    def _focused_chip(self) -> CardChip | None:
        focused = self.screen.focused
        return focused if isinstance(focused, CardChip) else None

    def action_step(self, delta: int) -> None:
        chips = self.chips()
        if not chips:
            return
        current = self._focused_chip()
        index = chips.index(current) if current in chips else -1
        self._focus(chips[(index + delta) % len(chips)])

    def action_row(self, delta: int) -> None:
        chips = self.chips()
        if not chips:
            return
        current = self._focused_chip()
        group = card_group(current.card) if current is not None else 0
        column = 0
        if current is not None:
            column = [c for c in chips if card_group(c.card) == group].index(current)
        for step in range(1, len(GROUP_LABELS) + 1):
            target = (group + delta * step) % len(GROUP_LABELS)
            row = [c for c in chips if card_group(c.card) == target]
            if row:
                self._focus(row[min(column, len(row) - 1)])
                return

    def action_jump(self, group: int) -> None:
        row = [c for c in self.chips() if card_group(c.card) == group]
        if row:
            self._focus(next((c for c in row if c.playable), row[0]))

    def action_play(self) -> None:
        current = self._focused_chip()
        if current is not None:
            self.post_message(CardChip.Chosen(current.card))

    def focus_hand(self) -> None:
        chips = self.chips()
        target = next((c for c in chips if c.playable), chips[0] if chips else None)
        if target is not None:
            self._focus(target)
