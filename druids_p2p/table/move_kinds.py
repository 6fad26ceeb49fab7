"""What a move at a card table cost the table, by what followed it: the bench's latency classes.

A move's latency at a card table runs from sending it to the table being ready for the next
move, so it holds every deck operation the move set off. Those differ by orders of magnitude: a
draw is one round of shares, a ritual an opening by the owners, a reshuffle (servants returned
into a reserve) a proven shuffle by every seat in turn, and the game's last move the final reveal
and audit. One percentile over all of them says little; these classes let the bench report each.
"""

from __future__ import annotations

from collections.abc import Iterable

from druids_p2p.deck.table_messages import DEAL, DEALS, FINAL, REVEAL, SHUFFLE

MOVE_KINDS = ("draw", "play", "ritual", "reshuffle", "end")
"""The latency classes, cheapest first: ``draw`` (a deal to the drawer, or a deals: one
round of shares), ``play`` (a card put down, a discard or a stop that opened nothing),
``ritual`` (a reveal by the owners, no reshuffle), ``reshuffle`` (a proven shuffle by every
seat followed), ``end`` (a round's or the game's last move: the final reveal and the audit)."""


def move_kind(op_kinds: Iterable[str], game_over: bool) -> str:
    """The class of a move whose consequences were the deck operations ``op_kinds`` (the
    deck's kinds: shuffle, deal, deals, turn, reveal, return, play, show, transfer, final);
    ``game_over``: the move ended the game or its round."""
    kinds = set(op_kinds)
    if game_over or FINAL in kinds:
        return "end"
    if SHUFFLE in kinds:
        return "reshuffle"
    if REVEAL in kinds:
        return "ritual"
    if DEAL in kinds or DEALS in kinds:
        return "draw"
    return "play"


__all__ = ["MOVE_KINDS", "move_kind"]
