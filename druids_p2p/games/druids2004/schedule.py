"""The mental-card operations a game needs, as data (what issue 18's table schedule follows).

Druids (2004) needs the general set of hidden operations: several decks with public backs (the gem
pile, the place supply, one servant reserve per seat), draws one card at a time to one seat,
face-down plays bound to the card that was dealt, reveals by several owners at once, public turns
from the supply, cards returned into a deck and reshuffled, face-down discards opened only at the
final audit. :func:`schedule` turns a game's setup and log into that list, in order; the cards are
named (the engine knows them all), so an audit can check each operation against them.

Decks: ``gems``, ``supply``, ``reserve:S``. Places a card can be: ``hand:S``, ``slot:K`` (face
down on the place in slot K), ``row:K`` (the place card itself, face up), ``discards``, ``out``.
``seen_by`` is ``"owner"`` (only the seat the card goes to, or that played it), ``"nobody"`` or
``"all"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.games.druids2004.cards import ROW_SLOTS, START_GEMS, START_SERVANTS, servant_owner
from druids_p2p.games.druids2004.records import (
    Discarded,
    Drew,
    GameEnded,
    Played,
    Reshuffled,
    RitualDone,
)
from druids_p2p.games.druids2004.state import Game2004

SHUFFLE = "shuffle"
DEAL = "deal"
"""The top card of a deck to one seat's hand, seen by that seat only."""
TURN = "turn"
"""The top card of a deck face up (the place row)."""
PLAY = "play"
"""A card from a hand face down onto a place or the discards: still seen by its owner only."""
REVEAL = "reveal"
"""Face-down cards opened to everyone (a ritual: each card by its owner)."""
RETURN = "return"
"""A revealed card back into a deck, face down (a servant into its owner's reserve)."""
FINAL = "final_reveal"
"""After the game: every card still hidden is opened and the audit replays every turn."""


@dataclass(frozen=True, slots=True)
class DeckOp:
    kind: str
    source: str
    target: str
    cards: tuple[int, ...]
    seen_by: str
    seat: int | None = None
    """The seat that receives, plays or owns the cards (None for public operations)."""


def setup_ops(game: Game2004) -> list[DeckOp]:
    s, n = game.setup, game.players
    ops = [
        DeckOp(SHUFFLE, "places", "supply", s.places, "nobody"),
        DeckOp(SHUFFLE, "gems", "gems", s.gems, "nobody"),
    ]
    ops += [DeckOp(SHUFFLE, f"reserve:{q}", f"reserve:{q}", s.reserves[q], "nobody", q)
            for q in range(n)]  # fmt: skip
    ops += [DeckOp(TURN, "supply", f"row:{k}", (s.places[k],), "all") for k in range(ROW_SLOTS)]
    for q in range(n):
        for card in s.gems[START_GEMS * q : START_GEMS * (q + 1)]:
            ops.append(DeckOp(DEAL, "gems", f"hand:{q}", (card,), "owner", q))
    for q in range(n):
        for card in s.reserves[q][:START_SERVANTS]:
            ops.append(DeckOp(DEAL, f"reserve:{q}", f"hand:{q}", (card,), "owner", q))
    return ops


def schedule(game: Game2004) -> list[DeckOp]:
    """Every deck operation of the game so far, in order (the final reveal once it is over)."""
    ops = setup_ops(game)
    for record in game.log:
        if isinstance(record, Drew):
            deck = "gems" if record.source == "gem" else f"reserve:{record.seat}"
            ops.append(DeckOp(DEAL, deck, f"hand:{record.seat}", (record.card,), "owner",
                              record.seat))  # fmt: skip
        elif isinstance(record, Played):
            ops.append(DeckOp(PLAY, f"hand:{record.seat}", f"slot:{record.slot}", (record.card,),
                              "owner", record.seat))  # fmt: skip
        elif isinstance(record, Discarded):
            ops.append(DeckOp(PLAY, f"hand:{record.seat}", "discards", (record.card,), "owner",
                              record.seat))  # fmt: skip
        elif isinstance(record, RitualDone):
            opened = tuple(g for _, g in record.gems) + record.servants
            ops.append(DeckOp(REVEAL, f"slot:{record.slot}", f"slot:{record.slot}", opened, "all"))
            for servant in record.returned:
                owner = servant_owner(servant)
                ops.append(DeckOp(RETURN, f"slot:{record.slot}", f"reserve:{owner}", (servant,),
                                  "nobody", owner))  # fmt: skip
            if record.turned is not None:
                ops.append(DeckOp(TURN, "supply", f"row:{record.slot}", (record.turned,), "all"))
        elif isinstance(record, Reshuffled):
            ops.append(DeckOp(SHUFFLE, f"reserve:{record.seat}", f"reserve:{record.seat}",
                              record.order, "nobody", record.seat))  # fmt: skip
        elif isinstance(record, GameEnded):
            hidden = tuple(c for _, c in game.discards) + tuple(game.pile) + tuple(game.supply)
            hidden += tuple(c for r in game.reserves for c in r)
            hidden += tuple(c for h in game.hands for c in h)
            for slot in game.row:
                if slot is not None:
                    hidden += tuple(g for _, g in slot.gems) + tuple(slot.servants)
            ops.append(DeckOp(FINAL, "all", "all", hidden, "all"))
    return ops
