"""``druids replay``: a game in the JSON notation in, every ruling applied, the outcome out.

This is the engine's contract with the outside world (it is checked against an independent
implementation of the rulings), so the input is validated strictly and the output is exact.
Pure: the caller reads the text and prints the result.
"""

from __future__ import annotations

import json
from typing import Any

from druids_p2p.games.druids2017.cards import DOMAINS, N_DOMAINS, ROUNDS_PER_GAME
from druids_p2p.games.druids2017.game import Game, GameOptions
from druids_p2p.games.druids2017.notation import format_card, format_move, parse_hand, parse_move
from druids_p2p.games.druids2017.rules import Round
from druids_p2p.games.seam import InvalidDeal


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
