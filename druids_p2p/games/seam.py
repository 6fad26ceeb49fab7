"""The seam between a rule set and everything that runs it (network, deck, bots, tournaments, TUI).
Those layers talk to a :class:`CardTableRuleset`, never to a game's internals, so a game is one
package and an entry point (docs/games.md); this module imports no game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable


class IllegalMove(ValueError):
    """A move that the rules forbid in this position; ``reason`` says exactly why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidDeal(ValueError):
    """Hands that cannot be a deal of the game (wrong sizes, duplicates, no Gaia or two, ...)."""


class GameMove(Protocol):
    """One move of a game as a value (python-chess's ``Move``): an ``id`` engines and bots index
    arrays with, and one canonical :meth:`token`, the one a signed ``move`` carries. Made once per
    id, so it is carried, never re-parsed, from where its text entered.
    """

    @property
    def id(self) -> int: ...

    def token(self) -> str: ...


class MoveValues(Protocol):
    """A game's ``Move`` class: its values by id and by token (python-chess's
    ``Move.from_uci``)."""

    def of(self, move_id: int) -> GameMove:
        """The move with ``move_id``; ValueError for an id that is no move of this game."""
        ...

    def from_token(self, token: str) -> GameMove:
        """The move a canonical token names; ValueError naming the token otherwise."""
        ...


class TableOptions(Protocol):
    """What a seat message fixes for a game (wire.md §6) and every peer binds into the table id.

    Each game has its own options type (Druids 2017's ``GameOptions``); the network, the records
    and the audits only read these three fields, so they hold options of any dealt game."""

    @property
    def players(self) -> int: ...
    @property
    def variant(self) -> bool: ...
    @property
    def rounds(self) -> int: ...


class GameProgress(Protocol):
    """Whose move it is and how the game ended: what every game and every seat's copy of one
    at a card table say alike."""

    @property
    def to_move(self) -> int | None: ...
    @property
    def game_over(self) -> bool: ...
    @property
    def totals(self) -> list[int]: ...
    @property
    def winners(self) -> list[int] | None: ...


@runtime_checkable
class CommonGameState(GameProgress, Protocol):
    """What every rule set's game offers: whose move, the legal moves, check, play, views, end."""

    @property
    def players(self) -> int: ...

    def legal_moves(self) -> list[int]: ...
    def check(self, move: int) -> str | None: ...
    def play(self, move: int) -> None: ...
    def view(self, seat: int) -> Any: ...


class Playing(Protocol):
    """Whose move, the legal moves and play: the part of a game its moves go to."""

    @property
    def to_move(self) -> int | None: ...

    def legal_moves(self) -> list[int]: ...
    def play(self, move: int) -> None: ...


Streams = Callable[[str, int], random.Random]
"""``streams(purpose, index)``: the random stream an in-process game draws its chance from (a
deal, a setup, a reshuffle), so that a seed fixes every chance step whoever sits where."""


class CommonRuleset(Protocol):
    """What every registered card game offers: its name, seats, cards, a new game and tokens,
    and what the one in-process game loop (``druids_p2p.bots.local_game``) needs to play it
    without knowing which game it is: the chance steps, the ends of rounds and the record."""

    name: str
    min_players: int
    max_players: int
    deck_size: int
    """Physical cards are ids ``0 .. deck_size-1`` (what the mental deck shuffles)."""

    def new_game(self, players: int, **options: Any) -> CommonGameState: ...
    def format_card(self, card: int) -> str: ...
    def parse_card(self, token: str) -> int: ...
    @property
    def Move(self) -> MoveValues:
        """The game's move values (``Move.of(id)``, ``Move.from_token(token)``,
        ``move.token()``)."""
        ...

    def seat_lines(self, view: Any) -> list[str]:
        """A seat's view (what its game's ``view(seat)`` returns) as a few lines of text: what
        a person at a plain terminal is shown before typing a move (``lan/peer_config.py``)."""
        ...

    def typed_move(self, move: GameMove) -> str:
        """The move as that person types it: numbered as :meth:`seat_lines` and the terminal
        UI number things (Druids 2004's places 1–6, where the notation has slots 0–5)."""
        ...

    def parse_typed_move(self, token: str) -> GameMove:
        """The move a person typed in :meth:`typed_move`'s spelling; ValueError naming it."""
        ...

    table_flags: frozenset[str]
    """Which of a seat message's ``variant`` and ``rounds`` the game uses (a host offers only
    these; the others are bound at their defaults)."""

    def make_options(self, players: int, variant: bool = False, rounds: int | None = None) -> Any:
        """The game's options for ``players`` seats (ValueError out of range). ``variant`` is
        Druids 2017's light side of Gaia, ``rounds`` the rounds of a game played by rounds
        (None: the default); a game without them ignores them."""
        ...

    def max_moves(self, players: int, rounds: int) -> int:
        """The most moves a whole game of ``players`` can take (``rounds``: the rounds a game
        dealt by rounds plays; a game of one round ignores it): what bounds the time a
        tournament waits for a game whose every move uses the host's whole limit."""
        ...

    def start(self, options: Any, streams: Streams) -> CommonGameState:
        """A new game with ``options``; a setup dealt at the start is drawn from ``streams``."""
        ...

    def chance(self, state: CommonGameState, streams: Streams) -> list[list[int]] | None:
        """Take the chance step due now (nobody is to move and the game is not over): deal the
        next round, reshuffle a reserve, drawing from ``streams``. The hands if it dealt a
        round, else None."""
        ...

    def in_play(self, state: CommonGameState) -> Playing:
        """Where the moves go until the next chance step: the game, or (faster, for a game
        dealt by rounds) the round being played. A loop asks again after every chance step."""
        ...

    def round_result(self, state: CommonGameState) -> tuple[list[int], str] | None:
        """The scores and the end (``ended_by``) of the round just over; None while a round is
        under way or before the first. A game not dealt round by round is one round."""
        ...

    def record(
        self,
        state: CommonGameState,
        deals: Sequence[Sequence[Sequence[int]]],
        moves: Sequence[Sequence[int]],
    ) -> dict[str, Any]:
        """The game as played, in the game's record notation (for ``druids replay``): ``deals``
        are the hands :meth:`chance` dealt, ``moves`` every round's moves in order."""
        ...

    def replay(self, text: str) -> tuple[int, dict[str, Any]]:
        """Replay a record in that notation: (exit code, JSON result); ValueError (one line)
        if it is malformed, exit code 1 at its first illegal move."""
        ...

    def describe(self, state: CommonGameState) -> Iterator[str]:
        """The game as text, line by line (what ``druids demo`` prints)."""
        ...


class CardOp(Protocol):
    """One operation of the mental card table as a game's schedule gives it: the fields of the
    deck's ``TableOp``, which a game may not import (deck.md §6.2 defines each operation).
    """

    @property
    def kind(self) -> str: ...
    @property
    def deck(self) -> str: ...
    @property
    def zone(self) -> str: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def cards(self) -> tuple[int, ...]: ...
    @property
    def position(self) -> int | None: ...
    @property
    def source(self) -> str: ...
    @property
    def seats(self) -> tuple[int, ...]: ...


WORD: Final = "word"
"""A seat's signed word about its own face-down cards (a ``move`` while words are due)."""
MOVE: Final = "move"
"""A public move: no card leaves a hand (a ``move`` message with the game's token)."""
PLAY: Final = "play"
"""A card put down from a hand into a zone: face down (``table_play``) or, with its ``card``,
shown face up (``table_show``)."""


@dataclass(frozen=True, slots=True)
class TableMove:
    """One move at a card table as one value: who made it, which kind, and what it names (a
    ``word``'s token, a public ``move``'s :class:`GameMove`, a ``play``'s position, zone and, face
    up, card). Built and checked once; a seat's :attr:`CardTableSeat.log` is the one record of the
    moves.
    """

    kind: str
    seat: int
    move: GameMove | None = None
    token: str = ""
    zone: str = ""
    position: int | None = None
    card: int | None = None


class CardTableSeat(GameProgress, Protocol):
    """One seat's copy of a game played at a mental card table: it knows only what that seat may
    know, yet gives every seat the same schedule and verdicts. Positions are numbered as cards leave
    decks; a refused move raises ValueError (the game's ``IllegalMove``) whose message blames the
    mover.
    """

    @property
    def ended_by(self) -> str | None:
        """How the game ended, in the rule set's words (None while it is under way): what a
        game record and a tournament line say of its end."""
        ...

    @property
    def seat(self) -> int:
        """This copy's play seat (an onlooker's, ``CardTableRuleset.onlooker``, is none of the
        table's: it holds no hand)."""
        ...

    @property
    def log(self) -> Sequence[Sequence[TableMove]]:
        """Every round's moves and words as this copy took them, in order (each play, move
        and word one entry; a face-down play's ``card`` None, a shown one's its card): the
        game's record of its moves, which the table refers into, never copies."""
        ...

    def ops(self) -> Sequence[CardOp]:
        """The operations due now, each given once; after running them (and :meth:`learn`-ing
        what they opened to this seat) ask again until it is empty and someone is to move."""
        ...

    def learn(self, position: int, card: int) -> None:
        """The table opened ``position`` to this seat as ``card`` (a deal to it, a turn, a
        reveal); ValueError if that cannot be (a card already elsewhere, another back)."""
        ...

    def check_play(
        self, seat: int, position: int, zone: str, card: int | None = None
    ) -> str | None:
        """Why ``seat`` may not put ``position`` of its hand into ``zone`` now, or None: pure
        (the copy is unchanged), the one check :meth:`play` makes too. ``card`` is the card a
        face-up ``show`` claims (None for a face-down play, and for this copy's own seat,
        whose cards it knows)."""
        ...

    def check_move(self, seat: int, move: GameMove) -> str | None:
        """Why ``seat``'s public ``move`` is refused now, or None (pure)."""
        ...

    def check_word(self, seat: int, token: str) -> str | None:
        """Why ``seat``'s word ``token`` is refused now (it owes none, or it is no word), or
        None (pure)."""
        ...

    def play(self, seat: int, position: int, zone: str, card: int | None = None) -> CardOp:
        """``seat`` puts ``position`` of its hand into ``zone`` (face up as ``card`` for a show);
        the table's op, kind ``play`` (face down) or ``show`` (face up) (ValueError with
        :meth:`check_play`'s reason if it refuses)."""
        ...

    def move(self, seat: int, move: GameMove) -> None:
        """``seat``'s public ``move`` (no card leaves its hand; ValueError with
        :meth:`check_move`'s reason if it refuses)."""
        ...

    def legal_moves(self) -> list[int]:
        """This seat's legal moves when it is to move (it knows its own hand)."""
        ...

    def words_asked(self) -> tuple[int, ...]:
        """The seats asked for a signed word about their hidden cards before the game can go
        on (Druids 2004: the "nothing left" end), while any is due; else empty."""
        ...

    def words_due(self) -> tuple[int, ...]:
        """Of those, the seats whose word has not come yet."""
        ...

    def own_word(self) -> str | None:
        """This seat's word (a move token) when it owes one."""
        ...

    def word_of(self, seat: int) -> str | None:
        """The word ``seat`` owes now as this copy's world says: true for this seat's own
        word, and for every seat's once the copy knows every card (an auditor's replay)."""
        ...

    def word(self, seat: int, token: str) -> None:
        """``seat``'s word; ValueError if it owes none or the token is none."""
        ...

    @property
    def words_contradicted(self) -> bool:
        """The words, all in, fit nothing this seat can see hidden: one is false (provably from
        its own cards), and the copy goes on no further."""
        ...

    def breaches(self, cards: Mapping[int, int]) -> list[tuple[int, int, str]]:
        """(seat, taken, reason) of every rule broken at this round's table that only ``cards``
        (every position's card, as its final reveal shows them) can show: a false word, a card
        that should have followed. ``taken`` is where the breaking move or word lies among those
        this copy took at this table (each play, move and word counting one, from 0), so the
        table finds its signed message. First breach first, the same on every seat's copy."""
        ...

    @property
    def round_scores(self) -> list[list[int]]:
        """Every ended round's scores (a game of one round: empty)."""
        ...

    def shown_move(self, card: int, zone: str) -> GameMove:
        """The move that shows ``card`` face up into ``zone`` (a ``table_show``): how the table
        names it; ValueError if none does."""
        ...

    def table_move(self, move: GameMove) -> tuple[int, str] | None:
        """(card, zone) for a move of this seat that puts a card of its hand down (the table
        plays that card's position into the zone), None for a public move (its token)."""
        ...

    def position_of(self, card: int) -> int:
        """The position that holds ``card`` of this seat's hand (ValueError if none)."""
        ...

    def view(self, seat: int) -> Any: ...


@runtime_checkable
class CardTableRuleset(CommonRuleset, Protocol):
    """A game played at a mental card table (Druids 2004, and Druids 2017 by protocol version
    2): deals, draws, plays face down or shown face up, reveals."""

    def table_seat(self, options: Any, seat: int, rng: random.Random) -> CardTableSeat:
        """``seat``'s copy of a new game with ``options``; ``rng`` only fills hidden places
        with guesses that nothing public depends on (never a secret)."""
        ...

    def onlooker(self, options: Any) -> CardTableSeat | None:
        """A copy of a new game with ``options`` that holds no hand and follows the game by
        what is public alone (told any card, it knows it): what ``druids audit`` replays a
        record with, so that every seat is judged alike, also where the record lacks the
        secrets. None if the game cannot be followed so: its owners' words steer it by hidden
        cards (Druids 2004), and only a seat's copy told every card may follow it."""
        ...


__all__ = [
    "MOVE",
    "PLAY",
    "WORD",
    "CardOp",
    "CardTableRuleset",
    "CardTableSeat",
    "CommonGameState",
    "CommonRuleset",
    "GameMove",
    "GameProgress",
    "IllegalMove",
    "InvalidDeal",
    "MoveValues",
    "Playing",
    "Streams",
    "TableMove",
    "TableOptions",
]
