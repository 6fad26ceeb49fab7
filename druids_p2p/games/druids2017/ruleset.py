"""Druids (2017) behind the seam: the rules its spec (``SPEC``, the package's) hands the registry.

Everything that runs a game reaches this one through the protocols of ``druids_p2p.games.seam``;
this class translates them to the engine's :class:`Game`, :class:`Round` and notation.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from druids_p2p.games.druids2017 import cards as _cards
from druids_p2p.games.druids2017 import notation as _notation
from druids_p2p.games.druids2017.deal import deal as _deal
from druids_p2p.games.druids2017.demo import game_lines as _game_lines
from druids_p2p.games.druids2017.game import Game, GameOptions
from druids_p2p.games.druids2017.replay import replay as _replay
from druids_p2p.games.druids2017.table_seat import ONLOOKER, TableSeat2017
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import CommonGameState, GameMove, Playing, Streams

PILE_CHOICES_PER_ROUND = 12
"""More than the Sickle pile choices a round can have (3 Sickles, a few ties each)."""


class DruidsRuleset:
    """Druids (Amigo, 2017; Burkhardt & Lehmann), as settled by the project's rulings."""

    name = "druids2017"
    min_players = _cards.MIN_PLAYERS
    max_players = _cards.MAX_PLAYERS
    deck_size = _cards.N_CARDS

    def new_game(self, players: int, **options: Any) -> Game:
        return Game(GameOptions(players=players, **options))

    def format_card(self, card: int) -> str:
        return _notation.format_card(card)

    def parse_card(self, token: str) -> int:
        return _notation.parse_card(token)

    Move = _notation.Move
    """The game's move values (the seam's ``MoveValues``)."""

    def typed_move(self, move: GameMove) -> str:
        """A person types the notation's token (nothing in it is numbered differently)."""
        return move.token()

    def parse_typed_move(self, token: str) -> _notation.Move:
        """The notation's token, its reading aid ``Gaia:R:dark`` too."""
        return _notation.MOVES[_notation.parse_move(token)]

    def seat_lines(self, view: Any) -> list[str]:
        """The hand, and the trick on the table (a :class:`PlayerView`'s)."""
        if not isinstance(view, PlayerView):
            raise TypeError(f"{self.name} shows a PlayerView, not {type(view).__name__}")
        trick = " ".join(f"P{s}:{_notation.format_move(m)}" for s, m in view.trick)
        return [
            f"round {view.round_index + 1}, trick: {trick or '-'}",
            f"your hand: {' '.join(_notation.format_card(c) for c in view.hand)}",
        ]

    # ------------------------------------------------------------ the in-process loop
    table_flags = frozenset({"variant", "rounds"})

    def make_options(
        self, players: int, variant: bool = False, rounds: int | None = None
    ) -> GameOptions:
        if rounds is None:
            return GameOptions(players=players, variant=variant)
        return GameOptions(players=players, variant=variant, rounds=rounds)

    def max_moves(self, players: int, rounds: int) -> int:
        """Every card of every hand, and the Sickle pile choices of each round."""
        return rounds * (players * _cards.HAND_SIZE[players] + PILE_CHOICES_PER_ROUND)

    def start(self, options: Any, streams: Streams) -> Game:
        if not isinstance(options, GameOptions):
            raise TypeError(f"{self.name} plays with GameOptions, not {type(options).__name__}")
        return Game(options)

    def chance(self, state: CommonGameState, streams: Streams) -> list[list[int]] | None:
        """Round ``r`` is dealt from ``streams("deal", r)``."""
        game = _game(state)
        hands = _deal(streams("deal", len(game.rounds)), game.players)
        game.start_round(hands)
        return hands

    def in_play(self, state: CommonGameState) -> Playing:
        game = _game(state)
        return game if game.round is None else game.round

    def round_result(self, state: CommonGameState) -> tuple[list[int], str] | None:
        rnd = _game(state).round
        if rnd is None or rnd.scores is None or rnd.ended_by is None:
            return None
        return list(rnd.scores), rnd.ended_by

    def record(
        self,
        state: CommonGameState,
        deals: Sequence[Sequence[Sequence[int]]],
        moves: Sequence[Sequence[int]],
    ) -> dict[str, Any]:
        """The notation of ``docs/rules.md`` §8."""
        options = _game(state).options
        return {
            "players": options.players,
            "variant": options.variant,
            "rounds": [
                {
                    "hands": [[_notation.format_card(c) for c in hand] for hand in hands],
                    "moves": [_notation.format_move(m) for m in round_moves],
                }
                for hands, round_moves in zip(deals, moves, strict=True)
            ],
        }

    def replay(self, text: str) -> tuple[int, dict[str, Any]]:
        return _replay(text)

    def describe(self, state: CommonGameState) -> Iterator[str]:
        return _game_lines(_game(state))

    # ------------------------------------------------------------ the mental card table
    def table_seat(self, options: Any, seat: int, rng: random.Random) -> TableSeat2017:
        """``seat``'s copy of a game at the mental card table (:mod:`.table_seat`): what makes
        this rule set a ``CardTableRuleset`` too."""
        if not isinstance(options, GameOptions):
            raise TypeError(f"{self.name} plays with GameOptions, not {type(options).__name__}")
        return TableSeat2017(options, seat, rng)

    def onlooker(self, options: Any) -> TableSeat2017:
        """A copy that holds no hand (:data:`.table_seat.ONLOOKER`): the owners' words only
        say who leads, and every card is shown as it is played, so what is public alone
        follows every round (a revoke and a false word wait for the final reveal, as at the
        table)."""
        if not isinstance(options, GameOptions):
            raise TypeError(f"{self.name} plays with GameOptions, not {type(options).__name__}")
        return TableSeat2017(options, ONLOOKER)


def _game(state: CommonGameState) -> Game:
    if not isinstance(state, Game):
        raise TypeError(f"druids2017 plays a Game, not {type(state).__name__}")
    return state


__all__ = ["DruidsRuleset"]
