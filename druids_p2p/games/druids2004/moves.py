"""Move identities: every decision of a turn is one move, a small integer with a text token.

Ids (0..602):
  * ``card * 6 + slot`` (0..539): play ``card`` from hand face down onto the place in ``slot``
    (gems onto its gem pile, servants into its servant row); only gems and servants are legal;
  * ``RITUAL + slot`` (540..545): announce a ritual on the place in ``slot``;
  * ``DISCARD + gem`` (546..599): discard that gem face down, out of the game;
  * ``DRAW_GEM`` (600), ``DRAW_SERVANT`` (601): draw one card from the gem pile / own reserve;
  * ``STOP`` (602): end the turn now (no discard, no more draws).

Tokens: ``K7>2`` and ``S0:3>2`` (play to slot 2), ``Ritual:2``, ``Discard:K7``, ``Draw:gem``,
``Draw:servant``, ``Stop``. Slots are numbered 0..5 from the left of the place row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from druids_p2p.games.druids2004.cards import (
    N_CARDS,
    N_GEMS,
    ROW_SLOTS,
    format_card,
    is_gem,
    is_servant,
    parse_card,
)

PLAY: Final = 0
RITUAL: Final = N_CARDS * ROW_SLOTS  # 540
DISCARD: Final = RITUAL + ROW_SLOTS  # 546
DRAW_GEM: Final = DISCARD + N_GEMS  # 600
DRAW_SERVANT: Final = DRAW_GEM + 1
STOP: Final = DRAW_SERVANT + 1
N_MOVES: Final = STOP + 1

KIND_PLAY: Final = "play"
KIND_RITUAL: Final = "ritual"
KIND_DISCARD: Final = "discard"
KIND_DRAW: Final = "draw"
KIND_STOP: Final = "stop"


@dataclass(frozen=True, slots=True, eq=False)
class Move:
    """One move as a value: its kind and the card / slot / source it names (-1 when none), its
    ``id`` (the int the engine and the bots index arrays with) and its one canonical
    :meth:`token` (python-chess's ``Move``, ``uci()``).

    Every value is made once, here: :meth:`of` and :func:`decode` are an index, equality and
    hash are identity's, and a token is parsed once, where text enters (:meth:`from_token`)."""

    kind: str
    card: int = -1
    slot: int = -1
    source: str = ""
    id: int = -1
    _token: str = ""
    """Empty for an id that decodes but is no move (a place card played)."""

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return decode, (self.id,)  # a copy (pickle, deepcopy) is the one value again

    def __repr__(self) -> str:
        return f"Move({self._token or self.id!r})"

    def token(self) -> str:
        """The canonical token: what a signed ``move`` carries and a record writes."""
        return self._token

    @staticmethod
    def of(move_id: int) -> Move:
        """The move with ``move_id``; ValueError for an id that is no move."""
        move = decode(move_id)
        if not move._token:
            raise ValueError(f"move {move_id} plays a place card, which no move can")
        return move

    @staticmethod
    def from_token(token: str) -> Move:
        """The move ``token`` names; ValueError naming the token if it is none."""
        move = _BY_TOKEN.get(token) if isinstance(token, str) else None
        return _DECODED[_parse(token)] if move is None else move


def play_move(card: int, slot: int) -> int:
    return card * ROW_SLOTS + slot


def ritual_move(slot: int) -> int:
    return RITUAL + slot


def discard_move(gem: int) -> int:
    return DISCARD + gem


def _decoded(move: int) -> Move:
    if move < RITUAL:
        card, slot = move // ROW_SLOTS, move % ROW_SLOTS
        token = f"{format_card(card)}>{slot}" if is_gem(card) or is_servant(card) else ""
        return Move(KIND_PLAY, card=card, slot=slot, id=move, _token=token)
    if move < DISCARD:
        return Move(KIND_RITUAL, slot=move - RITUAL, id=move, _token=f"Ritual:{move - RITUAL}")
    if move < DRAW_GEM:
        token = f"Discard:{format_card(move - DISCARD)}"
        return Move(KIND_DISCARD, card=move - DISCARD, id=move, _token=token)
    if move == DRAW_GEM:
        return Move(KIND_DRAW, source="gem", id=move, _token="Draw:gem")
    if move == DRAW_SERVANT:
        return Move(KIND_DRAW, source="servant", id=move, _token="Draw:servant")
    return Move(KIND_STOP, id=move, _token="Stop")


_DECODED: Final[tuple[Move, ...]] = tuple(_decoded(m) for m in range(N_MOVES))
_BY_TOKEN: Final[dict[str, Move]] = {m.token(): m for m in _DECODED if m.token()}


def decode(move: int) -> Move:
    """The move an id stands for; ValueError for an id outside 0..602."""
    if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move < N_MOVES:
        raise ValueError(f"no move has id {move!r}")
    return _DECODED[move]


def format_move(move: int) -> str:
    return Move.of(move).token()


def _slot(text: str, token: str) -> int:
    if len(text) != 1 or not "0" <= text <= str(ROW_SLOTS - 1):
        raise ValueError(f"unknown move token {token!r} (slots are 0..{ROW_SLOTS - 1})")
    return int(text)


def parse_move(token: str) -> int:
    """Move id of a token; ValueError naming the token if it is not a move of the notation."""
    return Move.from_token(token).id


def _parse(token: str) -> int:
    """What :meth:`Move.from_token` says of a token that names no move: why (ValueError)."""
    if not isinstance(token, str):
        raise ValueError(f"unknown move token {token!r}")
    if token == "Stop":
        return STOP
    if token == "Draw:gem":
        return DRAW_GEM
    if token == "Draw:servant":
        return DRAW_SERVANT
    if token.startswith("Ritual:"):
        return ritual_move(_slot(token[7:], token))
    if token.startswith("Discard:"):
        try:
            card = parse_card(token[8:])
        except ValueError:
            raise ValueError(f"unknown move token {token!r}") from None
        if not is_gem(card):
            raise ValueError(f"unknown move token {token!r} (only a gem can be discarded)")
        return discard_move(card)
    head, sep, slot = token.rpartition(">")
    if sep:
        try:
            card = parse_card(head)
        except ValueError:
            raise ValueError(f"unknown move token {token!r}") from None
        if not (is_gem(card) or is_servant(card)):
            raise ValueError(f"unknown move token {token!r} (a place card is never played)")
        return play_move(card, _slot(slot, token))
    raise ValueError(f"unknown move token {token!r}")
