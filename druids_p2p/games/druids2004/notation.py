"""The JSON notation of Druids (2004), and `druids replay` applying every ruling to a record.

A record is all an implementation needs to check a game, so reading one and replaying it sit
together."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from druids_p2p.games.druids2004.cards import format_card, format_move, parse_card, parse_move
from druids_p2p.games.druids2004.setup import (
    MOVE_RECORDS,
    InvalidSetup,
    Options,
    Reshuffled,
    RitualDone,
    Setup,
    validate_setup,
)
from druids_p2p.games.druids2004.state import Game2004

# The JSON game notation of Druids (2004): options, every pile as set up, every operation.
#
#     {"game": "druids2004", "players": 3,
#      "options": {"spaces_per_card": 2, "tie_order": "announcer", "servants_return": true},
#      "setup": {"start": 0, "places": ["@K1", ...12], "gems": ["K7", ...54],
#                "reserves": [["S0:3", ...6], ...one per seat]},
#      "moves": ["K7>2", "S0:3>4", "Draw:gem", "Stop", "Ritual:4",
#                {"reshuffle": 0, "order": ["S0:5", ...]}, ...]}
#
# Orders are top card first. ``options`` may be left out (the rulings' defaults); every other key
# is required. A reshuffle entry gives a reserve's new order after a ritual returned servants to it;
# it comes right after the ritual, one per reserve, in seat order. That is all an implementation
# needs to replay the game exactly: no seed, no randomness.


GAME = "druids2004"


class RecordError(ValueError):
    """The input is not a well-formed Druids (2004) record (exit code 2)."""


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """A record entry: seat ``seat``'s reserve gets ``order`` (top first)."""

    seat: int
    order: tuple[int, ...]


Entry = int | Reshuffle
"""A move id, or a reshuffle."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    options: Options
    setup: Setup
    entries: tuple[Entry, ...]


def _move_token(record: object) -> str:
    from druids_p2p.games.druids2004 import cards as mv
    from druids_p2p.games.druids2004.setup import Discarded, Drew, Played, RitualDone

    if isinstance(record, Played):
        return format_move(mv.play_move(record.card, record.slot))
    if isinstance(record, RitualDone):
        return format_move(mv.ritual_move(record.slot))
    if isinstance(record, Discarded):
        return format_move(mv.discard_move(record.card))
    if isinstance(record, Drew):
        return format_move(mv.DRAW_GEM if record.source == "gem" else mv.DRAW_SERVANT)
    return format_move(mv.STOP)


def to_json(game: Game2004) -> dict[str, Any]:
    """The record of a game so far, from its setup and log."""
    o, s = game.options, game.setup
    moves: list[Any] = []
    for record in game.log:
        if isinstance(record, MOVE_RECORDS):
            moves.append(_move_token(record))
        elif isinstance(record, Reshuffled):
            order = [format_card(c) for c in record.order]
            moves.append({"reshuffle": record.seat, "order": order})
    return {
        "game": GAME,
        "players": o.players,
        "options": {
            "spaces_per_card": o.spaces_per_card,
            "tie_order": o.tie_order,
            "servants_return": o.servants_return,
        },
        "setup": {
            "start": s.start,
            "places": [format_card(c) for c in s.places],
            "gems": [format_card(c) for c in s.gems],
            "reserves": [[format_card(c) for c in r] for r in s.reserves],
        },
        "moves": moves,
    }


def _expect(cond: bool, message: str) -> None:
    if not cond:
        raise RecordError(message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cards(value: object, what: str) -> tuple[int, ...]:
    _expect(
        isinstance(value, list) and all(isinstance(t, str) for t in value),
        f"{what} must be a list of card tokens",
    )
    assert isinstance(value, list)
    try:
        return tuple(parse_card(t) for t in value)
    except ValueError as exc:
        raise RecordError(f"{what}: {exc}") from None


def _options(data: dict[str, Any], players: int) -> Options:
    raw = data.get("options", {})
    _expect(isinstance(raw, dict), "'options' must be an object")
    unknown = set(raw) - {"spaces_per_card", "tie_order", "servants_return"}
    _expect(not unknown, f"unknown option(s): {', '.join(sorted(unknown))}")
    _expect(
        "spaces_per_card" not in raw or _is_int(raw["spaces_per_card"]),
        "'spaces_per_card' must be an integer",
    )
    try:
        return Options(players=players, **raw)
    except ValueError as exc:
        raise RecordError(str(exc)) from None


def _setup(raw: object, players: int) -> Setup:
    _expect(isinstance(raw, dict), "'setup' must be an object")
    assert isinstance(raw, dict)
    unknown = set(raw) - {"start", "places", "gems", "reserves"}
    _expect(not unknown, f"unknown key(s) in 'setup': {', '.join(sorted(unknown))}")
    missing = {"start", "places", "gems", "reserves"} - set(raw)
    _expect(not missing, f"'setup' lacks {', '.join(sorted(missing))}")
    _expect(_is_int(raw["start"]), f"'start' must be a seat number, not {raw['start']!r}")
    reserves = raw["reserves"]
    _expect(isinstance(reserves, list), "'reserves' must be a list (one per seat)")
    setup = Setup(
        places=_cards(raw["places"], "'places'"),
        gems=_cards(raw["gems"], "'gems'"),
        reserves=tuple(_cards(r, f"reserve of seat {i}") for i, r in enumerate(reserves)),
        start=raw["start"],
    )
    try:
        validate_setup(setup, players)
    except InvalidSetup as exc:
        raise RecordError(f"setup: {exc}") from None
    return setup


def _entry(index: int, raw: object) -> Entry:
    where = f"move {index}"
    if isinstance(raw, str):
        try:
            return parse_move(raw)
        except ValueError as exc:
            raise RecordError(f"{where}: {exc}") from None
    _expect(isinstance(raw, dict), f"{where}: a move token or a reshuffle object")
    assert isinstance(raw, dict)
    _expect(set(raw) == {"reshuffle", "order"}, f"{where}: a reshuffle has 'reshuffle', 'order'")
    _expect(_is_int(raw["reshuffle"]), f"{where}: 'reshuffle' must be a seat number")
    return Reshuffle(raw["reshuffle"], _cards(raw["order"], f"{where}: 'order'"))


def parse_record(text: str) -> GameRecord:
    """Parse and validate a record; RecordError (one line) if it is malformed."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise RecordError(f"not valid JSON: {exc}") from None
    _expect(isinstance(data, dict), "the record must be a JSON object")
    unknown = set(data) - {"game", "players", "options", "setup", "moves"}
    _expect(not unknown, f"unknown key(s) in the record: {', '.join(sorted(unknown))}")
    _expect(data.get("game") == GAME, f"'game' must be {GAME!r}, not {data.get('game')!r}")
    players = data.get("players")
    _expect(
        _is_int(players) and 2 <= players <= 4,
        f"'players' must be 2, 3 or 4, not {players!r}",
    )
    options = _options(data, players)
    _expect("setup" in data, "the record lacks 'setup'")
    setup = _setup(data["setup"], players)
    moves = data.get("moves", [])
    _expect(isinstance(moves, list), "'moves' must be a list")
    return GameRecord(options, setup, tuple(_entry(i, m) for i, m in enumerate(moves)))


def dumps(game: Game2004) -> str:
    return json.dumps(to_json(game))


# ``druids replay --game druids2004``: a record in, every ruling applied, the outcome out.
#
# Exit 0 with ``ok: true`` when every entry is legal; 1 with ``ok: false``, the entry's index and
# the reason at the first illegal one; malformed input raises :class:`RecordError` (exit 2).


__all__ = ["RecordError", "replay", "replay_game"]


def ritual_json(r: RitualDone) -> dict[str, Any]:
    return {
        "seat": r.seat,
        "slot": r.slot,
        "place": format_card(r.place),
        "amulets": len(r.amulets),
        "discarded": len(r.discarded),
        "shares": [
            {"servant": format_card(s.servant), "amulets": len(s.amulets), "points": s.points}
            for s in r.shares
        ],
        "turned": None if r.turned is None else format_card(r.turned),
        "ended": r.ended,
    }


def outcome_json(game: Game2004) -> dict[str, Any]:
    live = game.to_move is not None
    return {
        "ok": True,
        "finished": game.game_over,
        "ended_by": game.ended_by,
        "winners": game.winners,
        "scores": game.totals,
        "column_base": game.base,
        "rituals": [ritual_json(r) for r in game.log if isinstance(r, RitualDone)],
        "to_move": game.to_move,
        "pending_reshuffle": game.pending_reshuffle,
        "legal": [format_move(m) for m in game.legal_moves()] if live else None,
    }


def replay_game(text: str) -> tuple[int, dict[str, Any], Game2004]:
    """Replay a record: (exit code, JSON result, the game as far as it went)."""
    record = parse_record(text)
    game = Game2004(record.setup, record.options)
    for index, entry in enumerate(record.entries):
        if game.game_over:
            raise RecordError(f"move {index}: an entry after the game ended")
        if isinstance(entry, Reshuffle):
            due = game.pending_reshuffle
            if due is not None and entry.seat != due:
                reason: str | None = f"the reserve due is seat {due}'s, not seat {entry.seat}'s"
            else:
                reason = game.check_reshuffle(entry.order)
            if reason is None:
                game.shuffle_reserve(entry.order)
        else:
            reason = game.check(entry)
            if reason is None:
                game.play(entry)
        if reason is not None:
            return 1, {"ok": False, "move": index, "error": reason}, game
    return 0, outcome_json(game), game


def replay(text: str) -> tuple[int, dict[str, Any]]:
    code, result, _ = replay_game(text)
    return code, result
