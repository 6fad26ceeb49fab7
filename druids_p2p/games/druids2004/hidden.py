"""The hidden-information split the mental-card table needs (issue 18), as data and queries.

``ZONES`` says for every place a card can be who knows it there and when that changes;
``REVEALS`` says what each operation opens to whom. :func:`known_to` answers for one card now.
Everything is revealed to everyone after the game, when the audit re-checks every turn.
"""

from __future__ import annotations

from typing import Final

from druids_p2p.games.druids2004 import moves as mv
from druids_p2p.games.druids2004.cards import N_CARDS, is_gem, servant_owner
from druids_p2p.games.druids2004.state import Game2004

ZONES: Final = (
    ("gem pile", "nobody", "the drawer learns a card as it draws it"),
    ("place supply", "nobody", "everyone when a ritual turns it face up into the row"),
    ("reserve of P", "nobody, its owner included", "its owner as it draws the card"),
    ("hand of P", "P", "on a place only to P; at the ritual to everyone"),
    ("gem on a place", "the seat that played it", "everyone at the place's ritual"),
    ("servant on a place", "its owner (the back names it)", "everyone at the place's ritual"),
    ("discards", "the seat that discarded it", "everyone at the final audit"),
    ("place row, out of the game, amulets won, the box", "everyone", "always public"),
)

REVEALS: Final = (
    ("Draw:gem", "the top gem of the pile, to the drawer"),
    ("Draw:servant", "the top servant of the drawer's reserve, to the drawer"),
    ("K7>2 / S0:3>2", "nothing: public is 'a gem' or 'a servant of P0' onto slot 2"),
    ("Discard:K7", "nothing: public is 'a gem discarded'"),
    ("Ritual:2", "every card on the place in slot 2, to everyone; then the supply's top"),
    ("reshuffle", "nothing: the new order of a reserve is known to nobody"),
    ("end of game", "every card, to everyone (the audit replays every turn)"),
    (
        "nothing-left check",
        "whether any place holds a gem of its own kind is hidden while the pile is empty and no"
        " hand holds a gem: the table must open it then (or take the owners' word, audited)",
    ),
)


def known_to(game: Game2004, card: int) -> frozenset[int]:
    """The seats that know which card ``card`` is and where it lies, now."""
    if not 0 <= card < N_CARDS:
        raise ValueError(f"no card has id {card!r}")
    everyone = frozenset(range(game.players))
    if game.game_over:
        return everyone
    for seat, hand in enumerate(game.hands):
        if card in hand:
            return frozenset({seat})
    if card in game.pile or card in game.supply or any(card in r for r in game.reserves):
        return frozenset()
    for seat, gem in game.discards:
        if gem == card:
            return frozenset({seat})
    for slot in game.row:
        if slot is None:
            continue
        for seat, gem in slot.gems:
            if gem == card:
                return frozenset({seat})
        if card in slot.servants:
            return frozenset({servant_owner(card)})
    return everyone


def public_token(move: int) -> str:
    """What every other seat learns of ``move``: a play shows the slot and "a gem" or "a servant
    of P" (``gem>2``, ``S0:?>2``), a discard shows ``Discard:gem``; other moves are public."""
    m = mv.decode(move)
    if m.kind == mv.KIND_PLAY:
        what = "gem" if is_gem(m.card) else f"S{servant_owner(m.card)}:?"
        return f"{what}>{m.slot}"
    if m.kind == mv.KIND_DISCARD:
        return "Discard:gem"
    return mv.format_move(move)
