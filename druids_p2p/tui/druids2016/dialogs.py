"""The Druids (2016) table's dialogs: the end of the game, leaving, and the help (key ``?``)
with the keys, the signs on the board and the rules in brief (docs/rules-2016.md in full)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from druids_p2p.tui.dialogs import HelpScreen
from druids_p2p.tui.druids2016.board import (
    ARROWS,
    DRUID,
    MASTER,
    STAR_GLYPH,
    TEMPLE_GLYPH,
    TILE_GLYPHS,
)
from druids_p2p.tui.widgets import plain

KEYS: tuple[tuple[str, str], ...] = (
    ("← → ↑ ↓ / h j k l", "move the cursor over the board"),
    ("enter / space / click", "choose the square: a Druid, then where it goes, then the tile"),
    ("tab / shift+tab", "focus your next / previous Druid that can move"),
    ("n e s w", "step the focused Druid north (up) / east / south / west"),
    ("escape", "take back the last choice (the tile, the step, the Druid)"),
    ("?", "this help"),
    ("q", "leave the table"),
)
SIGNS: tuple[tuple[str, str], ...] = (
    (f"{DRUID}{ARROWS[0]}", "a Druid in its player's colour; the arrow is its facing"),
    (f"{MASTER}{ARROWS[2]}", "the Master Druid (into the other Temple wins; captured loses)"),
    (f"{TEMPLE_GLYPH}T", "a Temple (c1 for the player at row 1, c7 for the other)"),
    (STAR_GLYPH, "a Star (the tiles start on the middle one and beside the others)"),
    ("(M) (F) (C) (R)", "a terrain symbol printed on the board: ending a move on it moves a tile"),
    (f"{TILE_GLYPHS['M']}M", "the Mountain tile: no Druid may enter it"),
    (f"{TILE_GLYPHS['F']}F", "the Forest tile: a Druid on it cannot be captured"),
    (f"{TILE_GLYPHS['C']}C", "a Cloud tile: a Druid entering one moves on to the other"),
    (f"{TILE_GLYPHS['R']}R", "the River tile: a Druid entering it moves one square further"),
    ("colours", "blue: the focused Druid; green: where it may go; purple: where the tile may "
     "go; olive: the Cloud tiles to choose from; brown: the last move"),
)  # fmt: skip
RULES: tuple[str, ...] = (
    "Move one of your Druids one square, in any direction but the one it faces; it then faces "
    "the way it moved. Moving onto an opponent's Druid captures it.",
    "Ending a move on a terrain symbol moves a tile of that kind to a free square (you choose).",
    "You win with your Master Druid in the other player's Temple, or by capturing their Master; "
    "a player with no legal move loses.",
    "A position seen for the third time, or 200 moves without a capture, is a draw.",
)


def help_screen() -> HelpScreen:
    return HelpScreen(KEYS, RULES, "Druids (2016)", "docs/rules-2016.md", SIGNS)


_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 76; height: auto; max-height: 100%; border: thick $primary;
    background: $surface; padding: 0 2;
}}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} .hint {{ color: $text-muted; margin-top: 1; }}
"""


class GameOver2016(ModalScreen[None]):
    """Who won and why (or why it is a draw), in a few lines; enter leaves the table."""

    DEFAULT_CSS = _CSS.format(name="GameOver2016")
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,escape,q", "close", "leave")]

    def __init__(self, headline: str, lines: Sequence[str]) -> None:
        super().__init__()
        self.headline = headline
        self.lines = tuple(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.headline), classes="title", id="headline")  # names
            yield Static(plain("\n".join(self.lines)), id="game-over")
            yield Static("enter: leave the table", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmLeave2016(ModalScreen[bool]):
    DEFAULT_CSS = _CSS.format(name="ConfirmLeave2016")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "leave"),
        Binding("n,escape", "answer(False)", "stay"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Leave the game? (y / n)", classes="title")

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)
