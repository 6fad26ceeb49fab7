"""The seam between a rule set and everything that runs it (network, deck, bots, tournaments).

Those layers talk to a :class:`Ruleset` and the :class:`GameState` it creates, never to Druids
internals, so another game called Druids (the 2004 one, ``druids_p2p.games.druids2004``) is one more
ruleset. Moves and cards cross the seam as integers and as text tokens.

The seam has a common part every game offers (:class:`CommonRuleset`, :class:`CommonGameState`)
and the 2017 game's deal-per-round part (:class:`Ruleset`, :class:`GameState`), which the table
and the mental deck use today through ``druids_p2p.rulesets.dealt_ruleset``. The registry of
games lives in that neutral module, not here, so the 2017 engine and another game's package never
import each other (an import-linter contract checks it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from druids_p2p.engine import cards as _cards
from druids_p2p.engine import notation as _notation
from druids_p2p.engine.deal import deal as _deal
from druids_p2p.engine.demo import game_lines as _game_lines
from druids_p2p.engine.game import Game, GameOptions
from druids_p2p.engine.replay import replay as _replay
from druids_p2p.engine.rules import IllegalMove, InvalidDeal
from druids_p2p.engine.view import PlayerView


@runtime_checkable
class CommonGameState(Protocol):
    """What every rule set's game offers: whose move, the legal moves, check, play, views, end."""

    @property
    def players(self) -> int: ...
    @property
    def to_move(self) -> int | None: ...
    @property
    def game_over(self) -> bool: ...
    @property
    def totals(self) -> list[int]: ...
    @property
    def winners(self) -> list[int] | None: ...

    def legal_moves(self) -> list[int]: ...
    def check(self, move: int) -> str | None: ...
    def play(self, move: int) -> None: ...
    def view(self, seat: int) -> Any: ...


@runtime_checkable
class GameState(CommonGameState, Protocol):
    """A game dealt round by round (Druids 2017): what a table, a bot host or a replay needs."""

    @property
    def round_over(self) -> bool: ...
    @property
    def needs_deal(self) -> bool: ...
    @property
    def round_scores(self) -> list[list[int]]: ...

    @property
    def round_index(self) -> int:
        """The round being played (or the last one), 0-based; -1 before the first deal."""
        ...

    @property
    def round_ended_by(self) -> str | None:
        """How the last round ended (None while it is under way or before the first deal)."""
        ...

    def start_round(self, hands: list[list[int]]) -> Any: ...
    def start_hidden_round(self, seat: int, hand: list[int]) -> Any:
        """The next round as ``seat`` sees it at a table: only its own hand is known
        (:class:`InvalidDeal` for an impossible one); the others' cards enter by :meth:`reveal`."""
        ...

    def reveal(self, seat: int, card: int) -> None:
        """A card of ``seat``'s hidden hand, shown by the deal (ValueError if it cannot be)."""
        ...


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
    def format_move(self, move: int) -> str:
        """The move's token; ValueError for an id that is no move of this game."""
        ...

    def parse_move(self, token: str) -> int: ...

    def make_options(self, players: int, variant: bool = False) -> Any:
        """The game's options for ``players`` seats (ValueError out of range). ``variant`` is
        Druids 2017's light side of Gaia; a game without that variant ignores it."""
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


class Ruleset(CommonRuleset, Protocol):
    """A card game dealt once per round (Druids 2017): what the mental deck's deal needs."""

    def hand_size(self, players: int) -> int: ...
    def required_cards(self, players: int) -> frozenset[int]:
        """Cards that every deal must include (the deck deals them to a uniform random seat)."""
        ...

    lead_card: int
    """The card its holder shows at the deal's ``ready`` step and leads with (Gaia): a move
    that puts it on the table carries no opening (``protocol.md`` §5)."""

    def new_game(self, players: int, **options: Any) -> GameState: ...
    def deal(self, rng: random.Random, players: int) -> list[list[int]]: ...
    def cards_for_move(self, move: int) -> Sequence[int]:
        """Physical cards a move may put on the table (the deck opens one of them)."""
        ...

    def format_card(self, card: int) -> str: ...
    def parse_card(self, token: str) -> int: ...
    def format_move(self, move: int) -> str: ...
    def parse_move(self, token: str) -> int: ...
    def parse_move_token(self, token: str) -> int:
        """A signed move's token, which must be the canonical spelling (ValueError otherwise):
        equal moves are equal bytes, so records compare byte for byte."""
        ...


class DruidsRuleset:
    """Druids (Amigo, 2017; Burkhardt & Lehmann), as settled by the project's rulings."""

    name = "druids2017"
    min_players = _cards.MIN_PLAYERS
    max_players = _cards.MAX_PLAYERS
    deck_size = _cards.N_CARDS
    lead_card = _cards.GAIA

    def hand_size(self, players: int) -> int:
        return _cards.HAND_SIZE[players]

    def required_cards(self, players: int) -> frozenset[int]:
        return frozenset({_cards.GAIA})

    def new_game(self, players: int, **options: Any) -> Game:
        return Game(GameOptions(players=players, **options))

    def deal(self, rng: random.Random, players: int) -> list[list[int]]:
        return _deal(rng, players)

    def cards_for_move(self, move: int) -> Sequence[int]:
        return _cards.cards_for_move(move)

    def format_card(self, card: int) -> str:
        return _notation.format_card(card)

    def parse_card(self, token: str) -> int:
        return _notation.parse_card(token)

    def format_move(self, move: int) -> str:
        return _notation.format_move(move)

    def parse_move(self, token: str) -> int:
        return _notation.parse_move(token)

    def parse_move_token(self, token: str) -> int:
        return _notation.parse_move_token(token)

    # ------------------------------------------------------------ the in-process loop
    def make_options(self, players: int, variant: bool = False) -> GameOptions:
        return GameOptions(players=players, variant=variant)

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


def _game(state: CommonGameState) -> Game:
    if not isinstance(state, Game):
        raise TypeError(f"druids2017 plays a Game, not {type(state).__name__}")
    return state


__all__ = [
    "CommonGameState",
    "CommonRuleset",
    "DruidsRuleset",
    "GameOptions",
    "GameState",
    "IllegalMove",
    "InvalidDeal",
    "PlayerView",
    "Ruleset",
]
