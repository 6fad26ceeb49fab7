"""The evening's games in one terminal UI session, and the running scores over them.

A rematch (the end screen's ``r``) seats the same people again, so the evening is one list of
games played by the same names: each game's totals (play order) and winners as its table agreed
them, or why it stopped. The running scores add up, per name, the games played, the wins (a
shared win counts for each winner) and the points of the finished games; a stopped game counts
as played, with no points, and is said so. Only names are compared: at a rematch every seat keeps
its name (the bots theirs, the person theirs)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlayedGame:
    """One game of the evening, as its end screen showed it."""

    names: tuple[str, ...]
    """In play order (the order of ``totals`` and ``winners``)."""
    totals: tuple[int, ...] | None
    """None: the table stopped."""
    winners: tuple[int, ...] = ()
    me: str | None = None
    """This UI's person's name at that table."""
    stopped: str | None = None


@dataclass(frozen=True)
class Standing:
    """One name's running score over the evening."""

    name: str
    games: int
    wins: int
    points: int
    stopped: int
    """Games of theirs that stopped (no points counted)."""
    me: bool


class Evening:
    """The games of this session, in the order they ended (``note`` replaces a game noted again
    under the same key: a table's end is told once it stops and again with its result)."""

    def __init__(self) -> None:
        self._games: dict[object, PlayedGame] = {}

    def note(self, key: object, game: PlayedGame) -> None:
        self._games[key] = game

    def forget(self, key: object) -> None:
        """A stopped table whose game went on at a next one: counted once, as that one ends."""
        self._games.pop(key, None)

    @property
    def games(self) -> list[PlayedGame]:
        return list(self._games.values())

    def standings(self) -> list[Standing]:
        """Per name: most wins first, then most points, then the order they were first seen."""
        seen: dict[str, list[int]] = {}
        mine: set[str] = set()
        for game in self.games:
            if game.me is not None:
                mine.add(game.me)
            for seat, name in enumerate(game.names):
                games, wins, points, stopped = seen.setdefault(name, [0, 0, 0, 0])
                if game.totals is None or seat >= len(game.totals):
                    seen[name] = [games + 1, wins, points, stopped + 1]
                    continue
                won = 1 if seat in game.winners else 0
                seen[name] = [games + 1, wins + won, points + game.totals[seat], stopped]
        order = list(seen)
        rows = [Standing(n, *_four(seen[n]), me=n in mine) for n in order]
        return sorted(rows, key=lambda s: (-s.wins, -s.points, order.index(s.name)))

    def lines(self) -> list[str]:
        """The running scores, one line a player, for an end screen (empty before any game)."""
        games = self.games
        if not games:
            return []
        stopped = sum(1 for g in games if g.totals is None)
        head = f"This evening: {len(games)} game{'s' if len(games) != 1 else ''}"
        if stopped:
            head += f" ({stopped} stopped, counted without points)"
        out = [head]
        for s in self.standings():
            you = " (you)" if s.me else ""
            wins = f"{s.wins} win{'s' if s.wins != 1 else ''}"
            points = str(s.points).replace("-", "−")
            over = f"{s.games} game{'s' if s.games != 1 else ''}"
            out.append(f"  {s.name}{you}: {wins}, {points} points over {over}")
        return out

    def to_json(self) -> list[dict[str, object]]:
        """The standings, for ``druids play --json``."""
        return [
            {"name": s.name, "games": s.games, "wins": s.wins, "points": s.points}
            for s in self.standings()
        ]


def _four(counts: list[int]) -> tuple[int, int, int, int]:
    games, wins, points, stopped = counts
    return games, wins, points, stopped


__all__ = ["Evening", "PlayedGame", "Standing"]
