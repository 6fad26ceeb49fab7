"""Commands that take ``--game``: the games besides Druids (2017) are reached through here.

The CLI keeps the 2017 path as it was and hands any other game's name to these functions; each
raises ValueError with a one-line message for an unknown game or bad input.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

DEFAULT_GAME = "druids2017"
GAMES = ("druids2017", "druids2004")
GAME_HELP = "Rule set: druids2017 (default) or druids2004."


def check_game(name: str) -> str:
    """``name`` if it is a known game; ValueError naming it otherwise."""
    if name not in GAMES:
        raise ValueError(f"--game {name!r}: unknown game (known: {', '.join(GAMES)})")
    return name


def replay(name: str, text: str) -> tuple[int, dict[str, Any]]:
    """Replay a record of game ``name`` (not 2017); ValueError (RecordError) if malformed."""
    check_game(name)
    from druids_p2p.games.druids2004.replay import replay as replay_2004

    return replay_2004(text)


def bench_engine(name: str, players: int, games: int, seed: int) -> dict[str, Any]:
    check_game(name)
    if not 2 <= players <= 4:
        raise ValueError(f"--players must be 2, 3 or 4 for {name}, not {players}")
    from druids_p2p.games.druids2004.bench import bench_engine as bench_2004

    return bench_2004(players, games, seed)


def demo_lines(name: str, players: int, seed: int) -> Iterator[str]:
    check_game(name)
    if not 2 <= players <= 4:
        raise ValueError(f"--players must be 2, 3 or 4 for {name}, not {players}")
    from druids_p2p.games.druids2004.demo import demo_lines as demo_2004

    return demo_2004(players, seed)
