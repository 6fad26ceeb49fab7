"""The project's text notation for cards and moves (its "PGN"): stable, human-readable tokens, as
``G1``, ``Gaia:R`` (naming red, dark side), ``Gaia:R:light``, ``Pile:B``; the full list is
protocol.md Appendix A.
"""

from __future__ import annotations

from typing import Any, Final

from druids_p2p.games.druids2017.cards import (
    DOMAINS,
    GAIA,
    GAIA_BARE,
    GAIA_DARK,
    GAIA_LIGHT,
    MISTLETOES,
    N_CARDS,
    N_DOMAIN_CARDS,
    N_MOVES,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    SICKLES,
)


def _card_tokens() -> tuple[str, ...]:
    tokens = [f"{d}{v}" for d in DOMAINS for v in range(1, N_VALUES + 1)]
    tokens.append("Gaia")
    tokens.extend(["Mistletoe"] * len(MISTLETOES))
    tokens.extend(["Sickle"] * len(SICKLES))
    return tuple(tokens)


def _move_tokens() -> tuple[str, ...]:
    tokens = list(_card_tokens()[:N_DOMAIN_CARDS])
    tokens.extend(f"Gaia:{d}" for d in DOMAINS)
    tokens.extend(f"Gaia:{d}:light" for d in DOMAINS)
    tokens.extend(["Mistletoe", "Sickle"])
    tokens.extend(f"Pile:{d}" for d in DOMAINS)
    tokens.append("Gaia")
    return tuple(tokens)


CARD_TOKENS: tuple[str, ...] = _card_tokens()
MOVE_TOKENS: tuple[str, ...] = _move_tokens()

_CARD_BY_TOKEN: dict[str, int] = {}
for _card, _token in enumerate(CARD_TOKENS):
    _CARD_BY_TOKEN.setdefault(_token, _card)
_MOVE_BY_TOKEN: dict[str, int] = {token: move for move, token in enumerate(MOVE_TOKENS)}
_MOVE_BY_TOKEN.update({f"Gaia:{d}:dark": GAIA_DARK + i for i, d in enumerate(DOMAINS)})

assert len(CARD_TOKENS) == N_CARDS and len(MOVE_TOKENS) == N_MOVES
assert _MOVE_BY_TOKEN["Gaia"] == GAIA_BARE and _MOVE_BY_TOKEN["Gaia:G:light"] == GAIA_LIGHT
assert _MOVE_BY_TOKEN["Mistletoe"] == PLAY_MISTLETOE and _MOVE_BY_TOKEN["Sickle"] == PLAY_SICKLE
assert _MOVE_BY_TOKEN["Pile:G"] == PILE and _CARD_BY_TOKEN["Gaia"] == GAIA


class Move:
    """One move of the game as a value: its ``id`` (the int the engine and the bots index
    arrays with) and its one canonical :meth:`token` (python-chess's ``Move``, ``uci()``).

    Every value is made once, here (:data:`MOVES`): :meth:`of` is an index, equality and hash
    are identity's, and a token is parsed once, where text enters (:meth:`from_token`)."""

    __slots__ = ("_token", "id")
    id: int
    _token: str

    def __init__(self, move_id: int, token: str) -> None:
        if _SEALED:
            raise TypeError("a Move is made once per id: use Move.of or Move.from_token")
        object.__setattr__(self, "id", move_id)
        object.__setattr__(self, "_token", token)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Move is frozen")

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return Move.of, (self.id,)  # a copy (pickle, deepcopy) is the one value again

    def __repr__(self) -> str:
        return f"Move({self._token!r})"

    def token(self) -> str:
        """The canonical token: what a signed ``move`` carries and a record writes."""
        return self._token

    @staticmethod
    def of(move_id: int) -> Move:
        """The move with ``move_id``; ValueError for an id that is no move."""
        if isinstance(move_id, bool) or not isinstance(move_id, int) or not 0 <= move_id < N_MOVES:
            raise ValueError(f"no move has id {move_id!r}")
        return MOVES[move_id]

    @staticmethod
    def from_token(token: str) -> Move:
        """The move a canonical token names; ValueError naming the token otherwise (the
        reading aid ``Gaia:R:dark`` too: a signed message has one spelling, protocol.md
        appendix A, so that equal moves are equal bytes)."""
        move = _MOVE_BY_CANONICAL.get(token) if isinstance(token, str) else None
        if move is None:
            return MOVES[parse_move_token(token)]  # raises, naming the token
        return move


_SEALED = False
MOVES: Final[tuple[Move, ...]] = tuple(Move(m, t) for m, t in enumerate(MOVE_TOKENS))
"""Every move value, by id."""
_SEALED = True
_MOVE_BY_CANONICAL: Final[dict[str, Move]] = {m.token(): m for m in MOVES}


def format_card(card: int) -> str:
    """Token of a card id (both Mistletoes read ``Mistletoe``, both Sickles ``Sickle``)."""
    if not 0 <= card < N_CARDS:
        raise ValueError(f"no card has id {card}")
    return CARD_TOKENS[card]


def parse_card(token: str) -> int:
    """Card id of a token; the first copy for Mistletoe and Sickle. ValueError if unknown."""
    try:
        return _CARD_BY_TOKEN[token]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card token {token!r}") from None


def parse_hand(tokens: list[str]) -> list[int]:
    """Card ids of a list of tokens, giving repeated Mistletoe/Sickle tokens their next copy."""
    used: set[int] = set()
    hand: list[int] = []
    for token in tokens:
        card = parse_card(token)
        copies = MISTLETOES if card in MISTLETOES else SICKLES if card in SICKLES else (card,)
        for copy in copies:
            if copy not in used:
                card = copy
                break
        used.add(card)
        hand.append(card)
    return hand


def format_move(move: int) -> str:
    if not 0 <= move < N_MOVES:
        raise ValueError(f"no move has id {move}")
    return MOVE_TOKENS[move]


def parse_move(token: str) -> int:
    """Move id of a token. ValueError if the token is not a move of the notation."""
    try:
        return _MOVE_BY_TOKEN[token]
    except (KeyError, TypeError):
        raise ValueError(f"unknown move token {token!r}") from None


def parse_move_token(token: str) -> int:
    """Move id of a signed move's token, which must be the canonical spelling (protocol.md
    appendix A). The notation's reading aid ``Gaia:R:dark`` is refused here: a signed message
    has one spelling, so that equal moves are equal bytes and records compare byte for byte."""
    move = parse_move(token)
    if MOVE_TOKENS[move] != token:
        raise ValueError(f"{token!r} is not a canonical move token (write {MOVE_TOKENS[move]!r})")
    return move


__all__ = [
    "CARD_TOKENS",
    "GAIA",
    "MOVES",
    "MOVE_TOKENS",
    "Move",
    "format_card",
    "format_move",
    "parse_card",
    "parse_hand",
    "parse_move",
    "parse_move_token",
]
