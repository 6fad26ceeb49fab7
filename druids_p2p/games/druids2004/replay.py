"""``druids replay --game druids2004``: a record in, every ruling applied, the outcome out.

Exit 0 with ``ok: true`` when every entry is legal; 1 with ``ok: false``, the entry's index and
the reason at the first illegal one; malformed input raises :class:`RecordError` (exit 2).
"""

from __future__ import annotations

from typing import Any

from druids_p2p.games.druids2004.cards import format_card
from druids_p2p.games.druids2004.moves import format_move
from druids_p2p.games.druids2004.notation import RecordError, Reshuffle, parse_record
from druids_p2p.games.druids2004.records import RitualDone
from druids_p2p.games.druids2004.state import Game2004

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
