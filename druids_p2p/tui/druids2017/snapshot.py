"""An immutable picture of the table for the UI, taken on the thread that owns the table: the peer's
worker thread mutates the table machine, which the UI thread must never read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    GAIA,
    GAIA_DARK,
    N_DOMAIN_CARDS,
    card_domain,
    is_gaia_move,
    move_for_card,
)
from druids_p2p.games.druids2017.game import Game
from druids_p2p.games.druids2017.notation import format_card
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.tui.game_ui import SeatSnapshot
from druids_p2p.tui.widgets import in_your_words

if TYPE_CHECKING:
    from druids_p2p.lan.peer_config import TableView


class MoveCheck(Protocol):
    """Says why a move is not legal now (None if it is): a round, or a player's table view."""

    def check(self, move: int) -> str | None: ...


@dataclass(frozen=True)
class TableSnapshot:
    names: tuple[str, ...]
    """By play seat once the seat order is fixed (before: in seat-message order)."""
    my_seat: int | None
    players: int
    rounds: int
    variant: bool
    phase: str
    """seating, deal, play, reveal, done"""
    view: PlayerView | None
    my_turn: bool = False
    """The peer asks this seat for a move now (only then is a move accepted)."""
    turn: int = 0
    """Which request for a move this is: a move is submitted with it, so a stale one is ignored."""
    reasons: Mapping[int, str] = field(default_factory=dict)
    """On this seat's turn: card id -> why it cannot be played now."""
    round_scores: tuple[tuple[int, ...], ...] = ()
    totals: tuple[int, ...] = ()
    winners: tuple[int, ...] | None = None
    ended_by: str | None = None
    """How the current (or last) round ended, None while it runs."""
    carried_rounds: int = 0
    """Rounds this game played at the tables before this one (a table that went on without a
    departed seat, peer/go_on.py): ``round_scores`` begins with them, ``rounds`` counts them."""

    @property
    def round_number(self) -> int:
        """The round being played (1-based, counted in the whole game), 0 before a deal."""
        view = self.view
        return 0 if view is None else self.carried_rounds + view.round_index + 1

    def name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(self.names):
            return "?"
        return self.names[seat]

    def playable(self, card: int) -> bool:
        """True if playing ``card`` (Gaia: leading it) is a legal move now."""
        view = self.view
        if not self.my_turn or view is None:
            return False
        if card == GAIA:
            return any(is_gaia_move(m) for m in view.legal)
        return move_for_card(card) in view.legal

    def reason(self, card: int) -> str | None:
        """Why ``card`` cannot be played now (None if it can)."""
        if self.playable(card):
            return None
        if self.my_turn:
            return self.reasons.get(card, "not playable now")
        view = self.view
        if view is None or view.round_over:
            return "the round is over" if view is not None else "the cards are being dealt"
        if view.to_move is None:
            return "waiting for the Gaia holder to lead"
        if view.to_move == self.my_seat:
            return "one moment: the table is acknowledging the last move"
        return f"not your turn: waiting for {self.name(view.to_move)}"


def card_reason(view: PlayerView, rnd: MoveCheck, card: int) -> str | None:
    """Why this seat cannot play ``card`` now, in the player's words; None if it can.

    The precise rule comes from ``Round.check``; the common cases are phrased for the person
    holding the hand ("must follow red: you hold R3 R9").
    """
    if card == GAIA:
        if any(is_gaia_move(m) for m in view.legal):
            return None
        return in_your_words(rnd.check(GAIA_DARK), view.seat)
    move = move_for_card(card)
    if move in view.legal:
        return None
    if view.pending_pile_choice:
        return "first choose which tied pile your Sickle removes"
    if GAIA in view.hand and any(is_gaia_move(m) for m in view.legal):
        return "you hold Gaia: lead it first, naming a domain"
    led = view.lead_domain
    if card < N_DOMAIN_CARDS and led >= 0 and card_domain(card) != led:
        held = [c for c in view.hand if card_domain(c) == led]
        if held:
            tokens = " ".join(format_card(c) for c in held)
            return f"must follow {COLOUR_NAMES[led]}: you hold {tokens}"
    return in_your_words(rnd.check(move) or "not playable now", view.seat)


def _reasons(view: PlayerView, rnd: MoveCheck) -> dict[int, str]:
    out: dict[int, str] = {}
    for card in view.hand:
        reason = card_reason(view, rnd, card)
        if reason is not None:
            out[card] = reason
    return out


def snapshot_from_game(
    game: Game, seat: int, names: tuple[str, ...], phase: str = "play"
) -> TableSnapshot:
    """A snapshot of an engine game seen from ``seat`` (the offline table, tests)."""
    rnd = game.round
    view = game.view(seat) if rnd is not None else None
    my_turn = view is not None and view.to_move == seat and bool(view.legal)
    reasons = _reasons(view, rnd) if my_turn and view is not None and rnd is not None else {}
    winners = game.winners
    return TableSnapshot(
        names=names,
        my_seat=seat,
        players=game.players,
        rounds=game.options.rounds,
        variant=game.options.variant,
        phase="done" if game.game_over else phase,
        view=view,
        my_turn=my_turn,
        reasons=reasons,
        round_scores=tuple(tuple(s) for s in game.round_scores),
        totals=tuple(game.totals),
        winners=None if winners is None else tuple(winners),
        ended_by=None if rnd is None else rnd.ended_by,
    )


def snapshot_from_table(table: TableView, turn: int | None = None) -> TableSnapshot:
    """A snapshot of a peer's table, from the player's view of it; call it only on the peer's
    own thread.

    ``turn`` is given when the peer asks this seat for a move (its number); otherwise the
    snapshot never offers a move, even if the round says this seat moves next."""
    seat = table.seat
    options = table.options
    view = table.player_view() if seat is not None else None
    carried = int(getattr(table, "carried_rounds", 0))  # a table going on (peer/go_on.py)
    snap = TableSnapshot(
        names=table.names,
        my_seat=seat,
        players=options.players,
        rounds=options.rounds + carried,
        carried_rounds=carried,
        variant=options.variant,
        phase=table.phase,
        view=None,
        round_scores=table.round_scores,
        totals=table.totals,
    )
    if seat is None or view is None:
        return snap
    my_turn = turn is not None and view.to_move == seat and bool(view.legal)
    return replace(
        snap,
        phase="done" if table.game_over else table.phase,
        view=view,
        my_turn=my_turn,
        turn=0 if turn is None else turn,
        reasons=_reasons(view, table) if my_turn else {},
        winners=table.winners,
        ended_by=table.ended_by,
    )


def own(snapshot: SeatSnapshot | None) -> TableSnapshot | None:
    """A session's snapshot as this game's table reads it: a Druids (2017) table is only ever
    handed 2017 snapshots (TypeError for another game's, a wiring mistake)."""
    if snapshot is None or isinstance(snapshot, TableSnapshot):
        return snapshot
    raise TypeError(f"a Druids (2017) table was handed a {type(snapshot).__name__}")
