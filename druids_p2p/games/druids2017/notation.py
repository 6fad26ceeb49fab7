"""The project's text notation for cards and moves (its "PGN"): stable, human-readable tokens.

Cards: ``G1``..``G12``, ``Y..``, ``R..``, ``B..``, ``V..``, ``Gaia``, ``Mistletoe``, ``Sickle``.
Moves: a card token plays that card; ``Gaia:R`` leads Gaia naming red (dark side), ``Gaia:R:light``
the light side (``Gaia:R:dark`` is accepted as a spelling of ``Gaia:R``); ``Pile:B`` removes the
blue pile when a Sickle's highest piles tie.
"""

from __future__ import annotations

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
    "MOVE_TOKENS",
    "format_card",
    "format_move",
    "parse_card",
    "parse_hand",
    "parse_move",
    "parse_move_token",
]
