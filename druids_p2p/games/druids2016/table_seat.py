"""One seat's copy of a Druids (2016) game at the mental card table, and its cards. The game hides
nothing once play starts, but its start must be drawn so that neither peer can bias it and the
placements committed unseen: the schedule that does both is deck.md §11.5's. The onlooker
(:data:`ONLOOKER`) holds no hand: what ``druids audit`` replays with.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from druids_p2p.games.druids2016.board import TILE_SET, default_board
from druids_p2p.games.druids2016.game import Game, Options2016
from druids_p2p.games.druids2016.moves import PLACE, Move
from druids_p2p.games.druids2016.state import PLACED, place_choices, placer, setup_of
from druids_p2p.games.druids2016.view import SeatView, outcome, seat_view
from druids_p2p.games.seam import MOVE, PLAY, GameMove, IllegalMove, TableMove

# ---- formerly cards.py:
# The cards a table of two peers draws Druids (2016)'s setup with: nothing of the game is a
# card, so these stand for its chance and its secret choices (docs/protocol/deck.md §11.5).
#
# * 0-4, the five **tile cards** ``C1 C2 M F R``: shuffled with the two seat cards and turned,
#   their order is the tiles' on the start squares (c4, a3, a5, e3, e5 on the default board);
# * 5-6, the **seat cards** ``P0 P1``: of the two, the one turned first names the player at row
#   1, who moves first;
# * 7-14, the **square cards** ``P0:1`` .. ``P1:4``: player ``p``'s ``k``-th free back-row square
#   (its back row but the Temple, from column a to e), dealt to ``p`` alone; two of them played
#   face down are its placement, committed before either player's is opened.

TILE_CARDS: Final = tuple(range(len(TILE_SET)))
SEAT_CARDS: Final = (5, 6)
SETUP_CARDS: Final = (*TILE_CARDS, *SEAT_CARDS)
"""The setup deck: shuffled by both peers, then every card turned face up."""
SLOTS: Final = 4
"""Free squares on a back row (five squares, one the Temple)."""
SQUARE_BASE: Final = len(SETUP_CARDS)
N_CARDS: Final = SQUARE_BASE + 2 * SLOTS
TILE_TOKENS: Final = ("C1", "C2", "M", "F", "R")
TOKENS: Final[tuple[str, ...]] = (
    *TILE_TOKENS,
    "P0",
    "P1",
    *(f"P{p}:{k + 1}" for p in (0, 1) for k in range(SLOTS)),
)
_BY_TOKEN: Final = {t: c for c, t in enumerate(TOKENS)}


def tile_kind(card: int) -> str:
    """The kind (C, M, F, R) of a tile card."""
    return TILE_SET[card]


def square_card(player: int, slot: int) -> int:
    """The card of ``player``'s ``slot``-th free back-row square (0-3)."""
    return SQUARE_BASE + SLOTS * player + slot


def square_cards(player: int) -> tuple[int, ...]:
    return tuple(square_card(player, k) for k in range(SLOTS))


def slot_of(card: int) -> tuple[int, int]:
    """(player, slot) of a square card; ValueError for another card."""
    if not SQUARE_BASE <= card < N_CARDS:
        raise ValueError(f"card {card} is no square card")
    return divmod(card - SQUARE_BASE, SLOTS)


def format_card(card: int) -> str:
    """The card's token; ValueError for an id that is no card."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < N_CARDS:
        raise ValueError(f"no card has id {card!r}")
    return TOKENS[card]


def parse_card(token: str) -> int:
    """The card ``token`` names; ValueError naming the token otherwise."""
    card = _BY_TOKEN.get(token) if isinstance(token, str) else None
    if card is None:
        raise ValueError(f"unknown card token {token!r} (C1 C2 M F R, P0 P1, P0:1 .. P1:4)")
    return card


ONLOOKER = -1
SETUP, PLACEMENT = "setup", "placement"
TURNS = len(SETUP_CARDS)
"""Positions 0-6 are the setup deck's cards, turned."""


def place_deck(player: int) -> str:
    return f"place:{player}"


def hand_positions(player: int) -> tuple[int, ...]:
    """The positions dealt to ``player``: its four square cards."""
    return tuple(range(TURNS + SLOTS * player, TURNS + SLOTS * (player + 1)))


@dataclass(frozen=True, slots=True)
class Op:
    """One card-table operation (the seam's ``CardOp``: the deck's ``TableOp``'s fields)."""

    kind: str
    deck: str = ""
    zone: str = ""
    seat: int | None = None
    cards: tuple[int, ...] = ()
    position: int | None = None
    source: str = ""
    seats: tuple[int, ...] = ()


def setup_ops() -> list[Op]:
    """The draw and the deal of the square cards, in order (the module's steps 1-3)."""
    return [
        Op("shuffle", deck=SETUP, cards=SETUP_CARDS),
        *(Op("shuffle", deck=place_deck(p), cards=square_cards(p)) for p in (0, 1)),
        *(Op("turn", deck=SETUP, zone=SETUP) for _ in range(TURNS)),
        *(Op("deals", deck=place_deck(p), seats=(p,) * SLOTS) for p in (0, 1)),
    ]


class Druids2016Seat:
    """``seat``'s copy of a game with ``options`` (the seam's ``CardTableSeat``)."""

    def __init__(self, options: Options2016, seat: int) -> None:
        if seat != ONLOOKER and seat not in (0, 1):
            raise ValueError(f"no seat {seat} at a 2-player table")
        self.seat, self.options = seat, options
        self.board = default_board()
        self._due: list[Op] = setup_ops()
        self._revealing = False
        self._final = False
        self._cards: dict[int, int] = {}
        self._where: dict[int, int] = {}
        self.down: list[list[int]] = [[], []]
        """Each player's positions put face down into ``placement``, in order."""
        self.game: Game | None = None
        self.log: list[list[TableMove]] = [[]]
        self.words_contradicted = False

    # ------------------------------------------------------------------ what is known
    @property
    def first(self) -> int | None:
        """The player at row 1, once the setup deck is turned."""
        turned = [self._cards.get(p) for p in range(TURNS)]
        return next((c - SEAT_CARDS[0] for c in turned if c in SEAT_CARDS), None)

    @property
    def tiles(self) -> str | None:
        turned = [self._cards.get(p) for p in range(TURNS)]
        if any(c is None for c in turned):
            return None
        return "".join(tile_kind(c) for c in turned if c is not None and c in TILE_CARDS)

    def _square(self, card: int) -> int:
        player, slot = slot_of(card)
        first = self.first
        assert first is not None
        return place_choices(self.board, player ^ first, ())[slot]

    def placed(self, player: int) -> tuple[int, ...]:
        """The squares ``player`` has put down as far as this copy knows them."""
        known = [self._cards.get(p) for p in self.down[player]]
        return tuple(self._square(c) for c in known if c is not None)

    def _drawn(self) -> bool:
        return self.tiles is not None and self.first is not None

    # ------------------------------------------------------------------ progress
    @property
    def to_move(self) -> int | None:
        if self._due:
            return None
        if self.game is not None:
            return self.game.to_move
        first = self.first
        if not self._drawn() or first is None:
            return None
        if self.seat != ONLOOKER and not all(p in self._cards for p in hand_positions(self.seat)):
            return None  # its own square cards are still on their way
        return placer(first, self.down)

    @property
    def game_over(self) -> bool:
        return self.game is not None and self.game.result is not None

    @property
    def totals(self) -> list[int]:
        return list(outcome(None if self.game is None else self.game.result)[0])

    @property
    def winners(self) -> list[int] | None:
        won = outcome(None if self.game is None else self.game.result)[1]
        return None if won is None else list(won)

    @property
    def ended_by(self) -> str | None:
        return None if self.game is None or self.game.result is None else self.game.result.reason

    @property
    def round_scores(self) -> list[list[int]]:
        return []  # one round: its scores are the totals

    def legal_moves(self) -> list[int]:
        if self.seat == ONLOOKER or self.to_move != self.seat:
            return []
        if self.game is not None:
            return self.game.legal_codes()
        first = self.first
        assert first is not None
        own = self.placed(self.seat)
        return [PLACE + s for s in place_choices(self.board, self.seat ^ first, own)]

    def view(self, seat: int) -> SeatView:
        """``seat``'s view as this copy knows it (its own placement while placing)."""
        legal = tuple(self.legal_moves()) if seat == self.seat else ()
        own = self.placed(seat) if self.game is None and self._drawn() else ()
        return seat_view(
            seat, self.board, self.options.rules, self.first, self.tiles, own, self.game,
            self.to_move, legal,
        )  # fmt: skip

    # ------------------------------------------------------------------ the schedule
    def ops(self) -> list[Op]:
        placed = self.game is None and placer(0, self.down) is None
        if not self._due and placed and not self._revealing:
            self._revealing = True
            self._due.append(Op("reveal", zone=PLACEMENT))
            self._start_play()  # (a copy told every card already, as an audit's, starts now)
        if not self._due and self.game_over and not self._final:
            self._final = True
            self._due.append(Op("final"))
        due, self._due = self._due, []
        return due

    def learn(self, position: int, card: int) -> None:
        if not 0 <= position < N_CARDS:
            raise ValueError(f"no position {position} has been dealt")
        if position < TURNS:
            fits = card in SETUP_CARDS
        else:
            fits = card in square_cards((position - TURNS) // SLOTS)
        if not fits:
            raise ValueError(f"position {position} cannot hold card {card}")
        known = self._cards.get(position)
        if known is not None:
            if known != card:
                raise ValueError(f"position {position} holds {format_card(known)}, not {card}")
            return
        if card in self._where:
            raise ValueError(f"{format_card(card)} lies at position {self._where[card]}")
        self._cards[position], self._where[card] = card, position
        self._start_play()

    def _start_play(self) -> None:
        """Once the placements are revealed (every card put down known): the engine's game."""
        first, tiles = self.first, self.tiles
        if self.game is not None or not self._revealing or first is None or tiles is None:
            return
        if not all(p in self._cards for p in self.down[0] + self.down[1]):
            return
        placed = [list(self.placed(0)), list(self.placed(1))]
        self.game = Game(setup_of(self.board, first, tiles, placed), self.board, self.options.rules)

    # ------------------------------------------------------------------ no words
    def words_asked(self) -> tuple[int, ...]:
        return ()

    def words_due(self) -> tuple[int, ...]:
        return ()

    def own_word(self) -> str | None:
        return None

    def word_of(self, seat: int) -> str | None:
        return None

    def check_word(self, seat: int, token: str) -> str | None:
        return f"P{seat} owes no word: druids2016 has none"

    def word(self, seat: int, token: str) -> None:
        raise IllegalMove(self.check_word(seat, token) or "")

    # ------------------------------------------------------------------ placements
    def check_play(
        self, seat: int, position: int, zone: str, card: int | None = None
    ) -> str | None:
        if self.game is not None or self._revealing:
            return f"P{seat} put a card down, but the Druids are placed: a step is a move"
        if self.to_move != seat:
            return f"it is not P{seat}'s turn to place a Druid"
        if zone != PLACEMENT:
            return f"P{seat} put a card into {zone!r}: a placement goes into {PLACEMENT}"
        if card is not None:
            return f"P{seat} showed its placement: it is put down face down"
        if position not in hand_positions(seat) or position in self.down[seat]:
            return f"P{seat} put down position {position}, which is not one of its square cards"
        return None

    def play(self, seat: int, position: int, zone: str, card: int | None = None) -> Op:
        reason = self.check_play(seat, position, zone, card)
        if reason is not None:
            raise IllegalMove(reason)
        self.down[seat].append(position)
        self.log[0].append(TableMove(PLAY, seat, zone=zone, position=position))
        return Op("play", seat=seat, zone=zone)

    def shown_move(self, card: int, zone: str) -> Move:
        raise ValueError(f"druids2016 shows no card (zone {zone!r}): placements are face down")

    def table_move(self, move: GameMove) -> tuple[int, str] | None:
        if not isinstance(move, Move):
            raise TypeError(f"druids2016 plays its own Move, not {type(move).__name__}")
        if not move.placement:
            return None
        first = self.first
        if self.seat == ONLOOKER or first is None:
            raise IllegalMove(f"{move.token()}: this copy places no Druid")
        choices = place_choices(self.board, self.seat ^ first, ())
        if move.square not in choices or move.square in self.placed(self.seat):
            why = f"P{self.seat} may not place a Druid on {move.token()[1:]}"
            raise IllegalMove(why)
        return square_card(self.seat, choices.index(move.square)), PLACEMENT

    def position_of(self, card: int) -> int:
        where = self._where.get(card)
        if self.seat == ONLOOKER or where not in hand_positions(self.seat):
            raise ValueError(f"card {card} is not in this seat's hand")
        assert where is not None
        return where

    # ------------------------------------------------------------------ steps
    def check_move(self, seat: int, move: GameMove) -> str | None:
        if not isinstance(move, Move):
            return f"{move.token()} is no druids2016 move"
        if self.game is None:
            return f"P{seat} stepped ({move.token()}) before the Druids are placed"
        if self.to_move != seat:
            return f"it is not P{seat}'s move"
        if move.placement:
            return f"{move.token()}: a placement is a square card put down face down"
        return self.game.check(move)

    def move(self, seat: int, move: GameMove) -> None:
        reason = self.check_move(seat, move)
        if reason is not None:
            raise IllegalMove(reason)
        assert self.game is not None and isinstance(move, Move)
        self.game.play_code(move.code)
        self.log[0].append(TableMove(MOVE, seat, move=move, token=move.token()))

    def breaches(self, cards: Mapping[int, int]) -> list[tuple[int, int, str]]:
        """None: any two of a player's square cards are a legal placement, and the deck's proofs
        bind each card put down to the card dealt there."""
        return []


def new_seat(options: Options2016, seat: int, rng: random.Random | None = None) -> Druids2016Seat:
    """The seam's ``table_seat`` (``rng`` unused: this copy never guesses a hidden card)."""
    return Druids2016Seat(options, seat)


__all__ = ["ONLOOKER", "PLACED", "Druids2016Seat", "Op", "new_seat", "setup_ops"]
