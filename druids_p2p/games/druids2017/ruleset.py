"""Druids (2017) behind the seam: the rules its spec hands the registry, its demo and its replay.

The demo and `druids replay` read a finished game the way the seam does, so they sit with it."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

from druids_p2p.games.druids2017 import cards as _cards
from druids_p2p.games.druids2017 import notation as _notation
from druids_p2p.games.druids2017.cards import DOMAINS, N_DOMAINS, ROUNDS_PER_GAME
from druids_p2p.games.druids2017.cards import deal as _deal
from druids_p2p.games.druids2017.game import Game, GameOptions
from druids_p2p.games.druids2017.notation import format_card, format_move, parse_hand, parse_move
from druids_p2p.games.druids2017.rules import Round, TrickRecord
from druids_p2p.games.druids2017.table_seat import ONLOOKER, TableSeat2017
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import CommonGameState, GameMove, InvalidDeal, Playing, Streams

# Druids (2017) behind the seam: the rules its spec (``SPEC``, the package's) hands the registry.
#
# Everything that runs a game reaches this one through the protocols of ``druids_p2p.games.seam``;
# this class translates them to the engine's :class:`Game`, :class:`Round` and notation.


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
        return replay(text)

    def describe(self, state: CommonGameState) -> Iterator[str]:
        return game_lines(_game(state))

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


# A finished Druids (2017) game as text, trick by trick: what ``druids demo`` prints.
#
# It reads the game after the fact (every round keeps its tricks, piles and scores), so the demo
# plays through the one in-process loop like any other game and only the printing is the game's.


def _pile_summary(rnd: Round, seat: int) -> str:
    tops = [
        f"{format_card(rnd.piles[seat * 5 + d][-1])}({len(rnd.piles[seat * 5 + d])})"
        for d in range(5)
        if rnd.piles[seat * 5 + d]
    ]
    return " ".join(tops) or "-"


def _trick_line(number: int, trick: TrickRecord) -> str:
    plays = ", ".join(f"P{seat} {format_move(move)}" for seat, move in trick.plays)
    removed = "".join(
        f"; Sickle removes P{trick.winner}'s {DOMAINS[d]} pile" for d in trick.removed
    )
    return f"  trick {number:2}: {plays} -> P{trick.winner} takes it{removed}"


def game_lines(game: Game) -> Iterator[str]:
    """Each round (who leads, every trick, how it ended, the scores, the piles), then totals."""
    for index, rnd in enumerate(game.rounds):
        yield f"Round {index + 1}: P{rnd.gaia_holder} holds Gaia and leads"
        for number, trick in enumerate(rnd.tricks, 1):
            yield _trick_line(number, trick)
        if rnd.scores is None:
            continue
        how = "five domains" if rnd.ended_by == "five_domains" else "hands empty"
        yield f"  round over ({how}): scores {rnd.scores}"
        for seat in range(game.players):
            yield f"    P{seat} piles: {_pile_summary(rnd, seat)}"
    if game.game_over:
        winners = game.winners or []
        yield (
            f"Totals {game.totals}; winner{'s' if len(winners) > 1 else ''}: "
            + ", ".join(f"P{w}" for w in winners)
        )


# ``druids replay``: a game in the JSON notation in, every ruling applied, the outcome out.
#
# This is the engine's contract with the outside world (it is checked against an independent
# implementation of the rulings), so the input is validated strictly and the output is exact.
# Pure: the caller reads the text and prints the result.


class ReplayInputError(ValueError):
    """The input is not a well-formed game record (exit code 2)."""


def _expect(cond: bool, message: str) -> None:
    if not cond:
        raise ReplayInputError(message)


def _piles_json(rnd: Round) -> list[dict[str, list[str]]]:
    return [
        {
            DOMAINS[d]: [format_card(c) for c in rnd.piles[seat * N_DOMAINS + d]]
            for d in range(N_DOMAINS)
            if rnd.piles[seat * N_DOMAINS + d]
        }
        for seat in range(rnd.players)
    ]


def _round_json(rnd: Round) -> dict[str, Any]:
    return {"ended_by": rnd.ended_by, "scores": rnd.scores, "piles": _piles_json(rnd)}


def parse_record(text: str) -> tuple[GameOptions, list[tuple[list[list[int]], list[int]]]]:
    """Parse and validate the JSON record into options and (hands, moves) per round."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ReplayInputError(f"not valid JSON: {exc}") from None
    _expect(isinstance(data, dict), "the record must be a JSON object")
    unknown = set(data) - {"players", "variant", "rounds"}
    _expect(not unknown, f"unknown key(s) in the record: {', '.join(sorted(unknown))}")
    players = data.get("players")
    _expect(
        isinstance(players, int) and not isinstance(players, bool) and 3 <= players <= 5,
        f"'players' must be 3, 4 or 5, not {players!r}",
    )
    variant = data.get("variant", False)
    _expect(isinstance(variant, bool), f"'variant' must be true or false, not {variant!r}")
    rounds = data.get("rounds")
    _expect(isinstance(rounds, list), "'rounds' must be a list")
    _expect(1 <= len(rounds) <= ROUNDS_PER_GAME, f"a game has 1 to 5 rounds, not {len(rounds)}")
    parsed: list[tuple[list[list[int]], list[int]]] = []
    for r, rnd in enumerate(rounds):
        _expect(isinstance(rnd, dict), f"round {r} must be an object")
        extra = set(rnd) - {"hands", "moves"}
        _expect(not extra, f"round {r}: unknown key(s) {', '.join(sorted(extra))}")
        hands, moves = rnd.get("hands"), rnd.get("moves", [])
        _expect(isinstance(hands, list), f"round {r}: 'hands' must be a list")
        _expect(isinstance(moves, list), f"round {r}: 'moves' must be a list")
        _expect(len(hands) == players, f"round {r}: {len(hands)} hands for {players} players")
        for s, hand in enumerate(hands):
            _expect(
                isinstance(hand, list) and all(isinstance(t, str) for t in hand),
                f"round {r}: hand of seat {s} must be a list of card tokens",
            )
        try:
            flat = parse_hand([t for hand in hands for t in hand])
        except ValueError as exc:
            raise ReplayInputError(f"round {r}: {exc}") from None
        _expect(len(set(flat)) == len(flat), f"round {r}: a card is dealt more than once")
        it = iter(flat)
        ids = [[next(it) for _ in hand] for hand in hands]
        try:
            Round(ids, variant)  # validates sizes, duplicates and Gaia
        except InvalidDeal as exc:
            raise ReplayInputError(f"round {r}: {exc}") from None
        move_ids: list[int] = []
        for i, token in enumerate(moves):
            _expect(isinstance(token, str), f"round {r}, move {i}: a move must be a token string")
            try:
                move_ids.append(parse_move(token))
            except ValueError as exc:
                raise ReplayInputError(f"round {r}, move {i}: {exc}") from None
        parsed.append((ids, move_ids))
    return GameOptions(players=players, variant=variant), parsed


def replay(text: str) -> tuple[int, dict[str, Any]]:
    """Replay a record. Returns (exit code, JSON result); raises ReplayInputError if malformed.

    Exit code 0 with ``ok: true``, or 1 with ``ok: false`` at the first illegal move.
    """
    options, rounds = parse_record(text)
    game = Game(options)
    out_rounds: list[dict[str, Any]] = []
    for r, (hands, moves) in enumerate(rounds):
        rnd = game.start_round(hands)
        for i, move in enumerate(moves):
            if rnd.over:
                raise ReplayInputError(f"round {r}, move {i}: a move after the round ended")
            reason = rnd.check(move)
            if reason is not None:
                return 1, {"ok": False, "round": r, "move": i, "error": reason}
            rnd.play(move)
        if not rnd.over and r < len(rounds) - 1:
            raise ReplayInputError(
                f"round {r} has not ended but another round follows (only the last may stop early)"
            )
        out_rounds.append(_round_json(rnd))
    last = game.round
    assert last is not None
    live = not last.over
    return 0, {
        "ok": True,
        "rounds": out_rounds,
        "totals": game.totals,
        "finished": game.game_over,
        "winners": game.winners,
        "to_move": last.to_move if live else None,
        "legal": [format_move(m) for m in last.legal_moves()] if live else None,
    }
