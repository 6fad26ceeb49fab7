"""How cards and moves look: one colour per domain, distinct specials."""

from __future__ import annotations

from rich.text import Text

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    GAIA,
    MISTLETOES,
    N_DOMAIN_CARDS,
    N_DOMAINS,
    card_domain,
)
from druids_p2p.games.druids2017.notation import format_card
from druids_p2p.games.seam import GameMove

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
