"""High card behind the seam: the one object a ``GameSpec`` names as the game's rules.

It translates the seam's calls (``druids_p2p.games.seam.CardTableRuleset``) to the engine, the
table seat and the game's JSON notation, which ``druids replay`` reads::

    {"game": "highcard", "players": 3, "hands": [["S1", "H2", "C3"], ...], "moves": ["S1", ...]}
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

from druids_p2p.games.seam import CommonGameState, GameMove, Streams
from highcard.cards import HAND, MAX_PLAYERS, MIN_PLAYERS, N_CARDS, format_card, parse_card
from highcard.cards import Move as _Move
from highcard.engine import HighCard, Options, View, deal
from highcard.table_seat import ONLOOKER, HighCardSeat

NAME = "highcard"


class HighCardRuleset:
    """High card: three tricks of follow-suit, 2 to 4 players, hands hidden at the table."""

    name = NAME
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    deck_size = N_CARDS
    table_flags: frozenset[str] = frozenset()
    Move = _Move
    """The game's move values (the seam's ``MoveValues``)."""

    def new_game(self, players: int, **options: Any) -> HighCard:
        """A new game: ``hands=`` (every seat's) or ``seed=`` (a random deal)."""
        hands = options.pop("hands", None)
        seed = options.pop("seed", 0)
        opts = Options(players=players, **options)
        return HighCard(opts, hands if hands is not None else deal(random.Random(seed), players))

    def format_card(self, card: int) -> str:
        return format_card(card)

    def parse_card(self, token: str) -> int:
        return parse_card(token)

    def typed_move(self, move: GameMove) -> str:
        return move.token()

    def parse_typed_move(self, token: str) -> _Move:
        return _Move.from_token(token.strip().upper())

    def seat_lines(self, view: Any) -> list[str]:
        if not isinstance(view, View):
            raise TypeError(f"{NAME} shows its View, not {type(view).__name__}")
        trick = " ".join(f"P{s}:{format_card(c)}" for s, c in view.trick) or "-"
        hand = " ".join(format_card(c) for c in view.hand)
        return [f"trick {len(view.tricks) + 1}: {trick}; points {list(view.totals)}",
                f"your hand: {hand}"]  # fmt: skip

    # ------------------------------------------------------------ the in-process loop
    def make_options(
        self, players: int, variant: bool = False, rounds: int | None = None
    ) -> Options:
        """``variant`` and ``rounds`` are other games' (this one has neither)."""
        return Options(players=players)

    def max_moves(self, players: int, rounds: int) -> int:
        return players * HAND

    def start(self, options: Any, streams: Streams) -> HighCard:
        return HighCard(_options(options), deal(streams("deal", 0), _options(options).players))

    def chance(self, state: CommonGameState, streams: Streams) -> list[list[int]] | None:
        return None  # dealt at the start: nothing is left to chance

    def in_play(self, state: CommonGameState) -> HighCard:
        return _game(state)

    def round_result(self, state: CommonGameState) -> tuple[list[int], str] | None:
        game = _game(state)
        return None if game.ended_by is None else (game.totals, game.ended_by)

    def record(
        self,
        state: CommonGameState,
        deals: Sequence[Sequence[Sequence[int]]],
        moves: Sequence[Sequence[int]],
    ) -> dict[str, Any]:
        """The notation; the hands are the state's as dealt (``deals`` is empty: the game is
        dealt at its start), every card played in order."""
        game = _game(state)
        played = [c for _, c in _plays(game)]
        dealt = [sorted((h or []) + [c for s, c in _plays(game) if s == seat])
                 for seat, h in enumerate(game.hands)]  # fmt: skip
        return {
            "game": NAME,
            "players": game.players,
            "hands": [[format_card(c) for c in hand] for hand in dealt],
            "moves": [format_card(c) for c in played],
        }

    def replay(self, text: str) -> tuple[int, dict[str, Any]]:
        """(0, the outcome) if every move is legal, (1, where and why) at the first that is
        not; ValueError (one line) for a record that is malformed."""
        game, moves = _parse(text)
        for index, token in enumerate(moves):
            reason = game.check(parse_card(token)) if token in _TOKENS else f"no card {token!r}"
            if reason is not None:
                return 1, {"ok": False, "move": index, "error": reason}
            game.play(parse_card(token))
        return 0, {
            "ok": True,
            "finished": game.game_over,
            "ended_by": game.ended_by,
            "scores": game.totals,
            "winners": game.winners,
            "tricks": [
                {"leader": lead, "cards": [format_card(c) for _, c in plays], "winner": won}
                for lead, plays, won in game.tricks
            ],
            "to_move": game.to_move,
        }

    def describe(self, state: CommonGameState) -> Iterator[str]:
        game = _game(state)
        for k, (lead, plays, won) in enumerate(game.tricks, start=1):
            shown = " ".join(f"P{s}:{format_card(c)}" for s, c in plays)
            yield f"Trick {k} (P{lead} leads): {shown} -> P{won}"
        yield f"Totals {game.totals}, won by {game.winners}"

    # ------------------------------------------------------------ the mental card table
    def table_seat(self, options: Any, seat: int, rng: random.Random) -> HighCardSeat:
        return HighCardSeat(_options(options), seat, rng)

    def onlooker(self, options: Any) -> HighCardSeat:
        """Every card is shown as it is played: what is public follows the whole game."""
        return HighCardSeat(_options(options), ONLOOKER)


_TOKENS = frozenset(format_card(c) for c in range(N_CARDS))


def _plays(game: HighCard) -> list[tuple[int, int]]:
    return [p for _, plays, _ in game.tricks for p in plays] + list(game.trick)


def _parse(text: str) -> tuple[HighCard, list[str]]:
    """The game a record deals and its moves; ValueError (one line) if it is malformed."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("game", NAME) != NAME:
        raise ValueError(f'a {NAME} record is an object with "game": "{NAME}"')
    players, hands, moves = data.get("players"), data.get("hands"), data.get("moves")
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        raise ValueError('"hands" must be a list of lists of cards')
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise ValueError('"moves" must be a list of card tokens')
    if not isinstance(players, int) or isinstance(players, bool) or players != len(hands):
        raise ValueError(f'"players" must be the number of hands ({len(hands)}), not {players!r}')
    options = Options(players=players)  # (ValueError for a count out of range; InvalidDeal:)
    return HighCard(options, [[parse_card(t) for t in h] for h in hands]), moves


def _options(options: Any) -> Options:
    if not isinstance(options, Options):
        raise TypeError(f"{NAME} plays with its Options, not {type(options).__name__}")
    return options


def _game(state: object) -> HighCard:
    if not isinstance(state, HighCard):
        raise TypeError(f"{NAME} plays a HighCard, not {type(state).__name__}")
    return state
