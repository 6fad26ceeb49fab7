"""Druids (2017)'s help (key ``?``): every key of its table and of the lobby, and the rules in
brief (docs/rules.md and the project's rulings are the full text)."""

from __future__ import annotations

from druids_p2p.tui.dialogs import HelpScreen

KEYS: tuple[tuple[str, str], ...] = (
    ("← →", "previous / next card in your hand"),
    ("↑ ↓", "card in the domain row above / below"),
    ("tab / shift+tab", "move the focus (cards, buttons, fields)"),
    ("g y r b v s", "jump to your green, yellow, red, blue, violet or special cards"),
    (
        "enter / space",
        "play the focused card (Gaia: name a domain first); with --confirm-plays "
        "the first press marks it, a second plays it, any other key cancels",
    ),
    ("mouse click", "play a card, press a button"),
    ("1-5", "in the Gaia prompt: name green, yellow, red, blue or violet"),
    ("l / d", "in the Gaia prompt (variant tables): light or dark side"),
    ("1-5", "in the Sickle prompt: the tied pile to remove"),
    ("p", "open the Gaia or Sickle prompt again"),
    ("t", "every trick of this round: who played what, who took it"),
    (
        "c",
        "chat, also over a prompt or summary: every key is the line's until enter says it "
        "or escape closes the box",
    ),
    (
        "any key",
        "while a finished trick is held on the table: go on at once (that key does nothing else)",
    ),
    ("escape", "close a prompt, this help or a summary"),
    ("?", "this help"),
    ("q / ctrl+q / ctrl+c", "quit (asks first while a game is on; the record is kept)"),
    ("end screen: r", "rematch: the same players and options at a new table (running scores)"),
    ("lobby: enter / j", "join the selected table (bringing the bots chosen below it)"),
    ("lobby: h", "host a new table with the settings below the list"),
)


RULES: tuple[str, ...] = (
    "A round: each player plays one card per trick; the trick's winner leads the next.",
    "The Gaia holder leads Gaia first and names a domain: Gaia is a 0 of it.",
    "You must follow the led domain if you can — Mistletoe and Sickle may always be played.",
    "The highest card of the led domain takes the trick; off-domain cards never win.",
    "The taker stacks each domain's cards on its pile of that domain (the lowest on top).",
    "Take piles of all five domains and the round ends at once: −3 for you this round.",
    "A Golden Sickle in a trick removes the taker's pile with the highest top card.",
    "A round also ends when the hands are empty: you score the sum of your pile tops.",
    "Five rounds make a game; the highest total wins (a tie shares the win).",
)


def help_screen() -> HelpScreen:
    """The help shown over the lobby and the Druids (2017) table."""
    return HelpScreen(KEYS, RULES, "Druids", "docs/rules.md")
