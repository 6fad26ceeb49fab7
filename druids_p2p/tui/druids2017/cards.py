"""How Druids (2017)'s cards and moves look (one colour per domain, distinct specials), and the
warnings a player wants, computed from their view alone."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

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
