"""The end of a game as the commands print it: people, not seat numbers.

``druids play --headless``, ``host`` and ``join`` end with the same block: who won, then every
seat's player by name with its total and place, seats in **play order** (the order the seating's
coin flip fixed: seat numbers as the records and ``druids audit`` give them), then the records.
With ``--json`` the same facts are the ``players`` list, in the same order.
"""

from __future__ import annotations

from typing import Any, TypedDict

ORDER = "play"
"""How the ``players`` of a result are ordered (said in its JSON): by play seat, 0 first."""


class Player(TypedDict):
    """One seat of a result: its player's name, its play seat, place and total (None while the
    game did not finish), and its record (None where this machine holds none)."""

    name: str
    seat: int
    place: int | None
    total: int | None
    record: str | None


def places(totals: list[int] | None, winners: list[int] | None) -> list[int | None]:
    """Each seat's place: the winners (the rules' word, tie-breaks included) share 1st; every
    other seat comes after them and after each other seat with a higher total."""
    if totals is None or not winners:
        return [None] * len(totals or [])
    won = set(winners)
    out: list[int | None] = []
    for seat, total in enumerate(totals):
        if seat in won:
            out.append(1)
        else:
            ahead = sum(1 for s, t in enumerate(totals) if s not in won and t > total)
            out.append(1 + len(won) + ahead)
    return out


def players(
    names: list[str],
    totals: list[int] | None,
    winners: list[int] | None,
    records: list[str | None],
    finished: bool,
) -> list[Player]:
    """Every seat's player in play order (``names[s]``, ``records[s]``: play seat ``s``'s)."""
    ranks = places(totals, winners) if finished else [None] * len(names)
    out: list[Player] = []
    for seat, name in enumerate(names):
        total = totals[seat] if totals is not None and seat < len(totals) else None
        place = ranks[seat] if seat < len(ranks) else None
        record = records[seat] if seat < len(records) else None
        out.append(Player(name=name, seat=seat, place=place, total=total, record=record))
    return out


def _won(table: list[Player], winners: list[int] | None) -> str:
    won = [table[w]["name"] for w in winners or () if 0 <= w < len(table)]
    if not won:
        return "nobody won"
    return f"{won[0]} won" if len(won) == 1 else f"{' and '.join(won)} share the win"


def block(result: dict[str, Any], table: list[Player], records: list[str]) -> list[str]:
    """The lines a command ends with: the outcome, a row per seat (play order), the records."""
    if result.get("aborted"):
        lines = [f"table stopped: {result['aborted']}"]
        blame = result.get("blame")
        if isinstance(blame, int) and 0 <= blame < len(table):
            lines.append(f"blamed: {table[blame]['name']} (seat {blame})")
    else:
        lines = [f"game over: {_won(table, result.get('winners'))} (seats in play order)"]
    width = max([len("player"), *(len(p["name"]) for p in table)])
    lines.append(f"  seat  {'player':<{width}}  total  place")
    for p in table:
        total = "-" if p["total"] is None else str(p["total"])
        place = "-" if p["place"] is None else str(p["place"])
        lines.append(f"  {p['seat']:>4}  {p['name']:<{width}}  {total:>5}  {place:>5}")
    lines += [f"record: {record}" for record in records]
    return lines


def scores_text(names: list[str], scores: list[Any], totals: list[int] | None = None) -> str:
    """A round's scores by name, ``rule-1 +6, random-2 -3``; with running ``totals`` each
    followed by its total so far, ``rule-1 +6 (19)``."""
    parts = []
    for seat, (name, score) in enumerate(zip(names, scores, strict=False)):
        total = f" ({totals[seat]})" if totals is not None and seat < len(totals) else ""
        parts.append(f"{name} {int(score):+d}{total}")
    return ", ".join(parts)


def peer_players(result: dict[str, Any]) -> list[Player]:
    """A ``host``/``join`` peer's result as players: every seat's name (the seat message's),
    this seat's record only."""
    names = [str(n) for n in result.get("names") or []]
    mine = result.get("seat")
    records: list[str | None] = [
        result.get("record") if seat == mine else None for seat in range(len(names))
    ]
    return players(
        names, result.get("totals"), result.get("winners"), records, bool(result.get("finished"))
    )


__all__ = ["ORDER", "Player", "block", "peer_players", "places", "players", "scores_text"]
