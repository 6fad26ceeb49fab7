"""Druids (2004)'s rules as its spec hands them to the registry, with the demo and random play.

The registry's seam needs a new game, tokens, a replay and a demo; random whole games (the demo,
the bench, the property tests) are part of what the spec offers."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from druids_p2p.games.druids2004 import cards
from druids_p2p.games.druids2004.cards import KIND_NAMES, format_card, place_kind
from druids_p2p.games.druids2004.notation import replay, to_json
from druids_p2p.games.druids2004.setup import (
    ENDED_COLUMN,
    ENDED_NOTHING_LEFT,
    ENDED_ROW,
    ENDED_STALL,
    Discarded,
    Drew,
    GameEnded,
    Options,
    Played,
    Record,
    Reshuffled,
    RitualDone,
    Setup,
    Stopped,
    TurnEnded,
    random_setup,
)
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.table_seat import TableSeat2004
from druids_p2p.games.druids2004.view import SeatView, parse_typed_move, seat_lines, typed_move
from druids_p2p.games.seam import GameMove

# Druids (2004)'s rules, as its spec (``SPEC``, the package's) hands them to the registry.
#
# It fits the common part of the seam (name, players, deck size, a new game, tokens, what the
# in-process loop needs); the 2017 game's deal-per-round parts do not apply, so it does not pretend
# to have them. For the loop the whole game is one round, and its chance steps are the setup
# (``streams("setup", 0)``) and the reserves' reshuffles (one stream, ``streams("shuffle", 0)``).


Streams = Callable[[str, int], random.Random]
"""``druids_p2p.games.seam.Streams``, spelled out: the games never import each other."""

MAX_MOVES = 600
"""A bound on the moves of a whole game (what a tournament's game timeout is built from)."""


class Druids2004Ruleset:
    """Druids (Colovini, Kidult Games, 2004), as settled by RULINGS-2004.md."""

    name = "druids2004"
    min_players = cards.MIN_PLAYERS
    max_players = cards.MAX_PLAYERS
    deck_size = cards.N_CARDS

    def new_game(self, players: int, **options: Any) -> Game2004:
        """A new game: ``setup=Setup(...)`` (given orders), else ``rng=`` or ``seed=`` (random).

        Other keywords are :class:`Options` fields (``spaces_per_card``, ``tie_order``,
        ``servants_return``).
        """
        setup: Setup | None = options.pop("setup", None)
        rng: random.Random | None = options.pop("rng", None)
        seed = options.pop("seed", 0)
        opts = Options(players=players, **options)
        if setup is None:
            setup = random_setup(rng if rng is not None else random.Random(seed), players)
        return Game2004(setup, opts)

    def format_card(self, card: int) -> str:
        return cards.format_card(card)

    def parse_card(self, token: str) -> int:
        return cards.parse_card(token)

    Move = cards.Move
    """The game's move values (the seam's ``MoveValues``)."""

    def typed_move(self, move: GameMove) -> str:
        return typed_move(move.id)

    def parse_typed_move(self, token: str) -> cards.Move:
        return cards.Move.of(parse_typed_move(token))

    def seat_lines(self, view: Any) -> list[str]:
        if not isinstance(view, SeatView):
            raise TypeError(f"{self.name} shows a SeatView, not {type(view).__name__}")
        return seat_lines(view)

    # ------------------------------------------------------------ the in-process loop
    table_flags: frozenset[str] = frozenset()

    def make_options(
        self, players: int, variant: bool = False, rounds: int | None = None
    ) -> Options:
        return Options(players=players)

    def max_moves(self, players: int, rounds: int) -> int:
        """About 600 whatever the seats: 54 gems and 24 servants, each played, drawn or
        discarded about once a pass, and the stall end (one round: ``rounds`` is ignored)."""
        return MAX_MOVES

    def start(self, options: Any, streams: Streams) -> Game2004:
        if not isinstance(options, Options):
            raise TypeError(f"{self.name} plays with its Options, not {type(options).__name__}")
        return Game2004(random_setup(streams("setup", 0), options.players), options)

    def chance(self, state: object, streams: Streams) -> list[list[int]] | None:
        game = _game(state)
        while game.pending_reshuffle is not None:
            game.shuffle_reserve_random(streams("shuffle", 0))
        return None

    def in_play(self, state: object) -> Game2004:
        return _game(state)

    def round_result(self, state: object) -> tuple[list[int], str] | None:
        game = _game(state)
        return None if game.ended_by is None else (list(game.totals), game.ended_by)

    def record(
        self,
        state: object,
        deals: Sequence[Sequence[Sequence[int]]],
        moves: Sequence[Sequence[int]],
    ) -> dict[str, Any]:
        """The notation of docs/rules-2004.md §8 (the setup and the log hold every move)."""
        return to_json(_game(state))

    def replay(self, text: str) -> tuple[int, dict[str, Any]]:
        return replay(text)

    def describe(self, state: object) -> Iterator[str]:
        return game_lines(_game(state))

    # ------------------------------------------------------------ at a card table
    def table_seat(self, options: Any, seat: int, rng: random.Random) -> TableSeat2004:
        """``seat``'s copy of a game at a mental card table (:mod:`.table_seat`)."""
        if not isinstance(options, Options):
            raise TypeError(f"{self.name} plays with its Options, not {type(options).__name__}")
        return TableSeat2004(options, seat, rng)

    def onlooker(self, options: Any) -> None:
        """None: the owners' words steer the game by face-down gems nobody else has seen, so
        what is public alone cannot follow it."""
        return None


def _game(state: object) -> Game2004:
    if not isinstance(state, Game2004):
        raise TypeError(f"druids2004 plays a Game2004, not {type(state).__name__}")
    return state


# Random legal play of whole games of Druids (2004), and `druids demo` telling one turn by turn.
#
# The bench, the demo and the property tests drive the same random play.


# Random legal play of whole games: the bench, the demo and the property tests drive this.


MAX_STEPS = 20_000
"""No game takes this many operations (each turn draws or plays, or counts toward the stall)."""


def advance(game: Game2004, rng: random.Random) -> None:
    """Give every due reserve a random new order (what the deck does at a table)."""
    while game.pending_reshuffle is not None:
        game.shuffle_reserve_random(rng)


def random_game(rng: random.Random, options: Options) -> Game2004:
    """A new game set up from ``rng``."""
    return Game2004(random_setup(rng, options.players), options)


def play_random(game: Game2004, rng: random.Random) -> int:
    """Play uniformly random legal moves to the end; returns the number of moves."""
    for played in range(MAX_STEPS):
        advance(game, rng)
        if game.game_over:
            return played
        game.play(rng.choice(game.legal_moves()))
    raise RuntimeError(f"a game did not end within {MAX_STEPS} moves")


def play_random_game(rng: random.Random, options: Options) -> tuple[Game2004, int]:
    game = random_game(rng, options)
    return game, play_random(game, rng)


# A whole game between random players, told turn by turn (``druids demo --game druids2004``),
# its places numbered 1-6 as every screen numbers them (the notation's slots are 0-5).


def playout(rng: random.Random, options: Options) -> int:
    """The spec's ``playout``: one whole random game's moves (``druids bench engine``)."""
    return play_random_game(rng, options)[1]


ENDS = {
    ENDED_COLUMN: "the score column could not move on",
    ENDED_ROW: "only one place is left without a ritual",
    ENDED_NOTHING_LEFT: "nothing is left to score",
    ENDED_STALL: "a full round of turns did nothing",
}
"""How each of the records' end reasons (``END_REASONS``) is told."""


def ritual_lines(r: RitualDone) -> list[str]:
    kind = KIND_NAMES[place_kind(r.place)]
    lines = [
        f"    ritual on place {r.slot + 1} ({format_card(r.place)}, {kind}): "
        f"{len(r.amulets)} amulet(s), {len(r.discarded)} other gem(s) out, "
        f"servants {' '.join(format_card(s) for s in r.servants) or '-'}"
    ]
    for s in r.shares:
        lines.append(
            f"      {format_card(s.servant)} takes {len(s.amulets)}: P{s.owner} +{s.points}"
        )
    if r.turned is not None:
        lines.append(f"      {format_card(r.turned)} is turned into place {r.slot + 1}")
    return lines


def _record_lines(record: Record) -> list[str]:
    if isinstance(record, RitualDone):
        return ritual_lines(record)
    if isinstance(record, Played):
        return [f"    plays {format_card(record.card)} onto place {record.slot + 1}"]
    if isinstance(record, Discarded):
        return [f"    discards {format_card(record.card)}"]
    if isinstance(record, Drew):
        where = "the gem pile" if record.source == "gem" else "its reserve"
        return [f"    draws {format_card(record.card)} from {where}"]
    if isinstance(record, Reshuffled):
        return [f"    P{record.seat}'s reserve is reshuffled ({len(record.order)} servants)"]
    if isinstance(record, Stopped):
        return ["    stops"]
    return []


def game_lines(game: Game2004) -> Iterator[str]:
    """The game's log as text, one block per turn."""
    names = " ".join(format_card(p) for p in game.setup.places[:6])
    yield f"Druids (2004), {game.players} players; P{game.setup.start} starts; row {names}"
    turn, seat, header = 1, game.setup.start, True
    for record in game.log:
        if isinstance(record, GameEnded):
            winners = ", ".join(f"P{w}" for w in record.winners)
            yield f"Game over: {ENDS[record.reason]}."
            yield f"Scores {list(record.scores)}; won by {winners}"
            continue
        if header:
            yield f"Turn {turn}: P{seat}"
            header = False
        if isinstance(record, TurnEnded):
            if not record.active:
                yield "    does nothing"
            yield f"  scores {record_scores(game, record)}"
            turn, seat, header = turn + 1, (record.seat + 1) % game.players, True
        else:
            yield from _record_lines(record)


def record_scores(game: Game2004, upto: TurnEnded) -> list[int]:
    """Scores after the turn ``upto`` ended (replayed from the log's ritual shares)."""
    scores = [0] * game.players
    for record in game.log:
        if isinstance(record, RitualDone):
            for s in record.shares:
                scores[s.owner] += s.points
        if record is upto:
            break
    return scores


def demo_lines(players: int, seed: int, options: Options | None = None) -> Iterator[str]:
    opts = options or Options(players=players)
    game, _ = play_random_game(random.Random(seed), opts)
    yield from game_lines(game)


RULES = Druids2004Ruleset()
"""The rules, as the game's spec names them (``GameSpec.rules``)."""
