"""What fixes a tournament's games: the configuration written to ``run.json``, and its limits.

The same configuration and seed give the same games, so a resume compares configurations field
by field (:meth:`TournamentConfig.differences`) and refuses a run that would not belong.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from druids_p2p.bots.host import HOOK_TIMEOUT_MS, wait_limit_ms
from druids_p2p.games.registry import UNUSED_ROUNDS, default_name, game_spec
from druids_p2p.tournament.plan import PlannedGame, plan_challenge, plan_lineups, plan_tournament
from druids_p2p.tournament.sprt import SprtTest

MODE_ROUND_ROBIN = "round-robin"
MODE_CHALLENGE = "challenge"
MODE_LINEUP = "lineup"
MODE_GAUNTLET = "gauntlet"


class TournamentError(Exception):
    """A user-facing tournament failure (bad folder, config mismatch, a worker error)."""


@dataclass(frozen=True)
class TournamentConfig:
    """What fixes the games of a run: the same config and seed give the same games."""

    bots: tuple[str, ...]
    versions: tuple[str, ...]
    players: int
    games: int
    """Games requested; the plan rounds it up to whole deals (:attr:`planned`)."""
    seed: int
    time_per_move_ms: float
    p2p: bool = False
    variant: bool = False
    mode: str = MODE_ROUND_ROBIN
    """``round-robin``; ``challenge``: the first bot against copies of the second; ``lineup``
    and ``gauntlet``: the fixed seatings of :attr:`lineups`, rotated on every deal."""
    lineups: tuple[tuple[str, ...], ...] = ()
    """Fixed lineups (bots may repeat), for the ``lineup`` and ``gauntlet`` modes."""
    sprt: tuple[float, float, float, float] | None = None
    """``(lo, hi, alpha, beta)``: stop a two-bot match when the SPRT decides (:mod:`.sprt`)."""
    sprt_stat: str = "elo"
    stop_ci: float | None = None
    """Stop when the 95% interval of the margin is narrower than this (points)."""

    game: str = field(default_factory=default_name)
    """The game played (left out of run.json for the default game, as before other games
    existed)."""

    def sprt_test(self) -> SprtTest | None:
        if self.sprt is None:
            return None
        return SprtTest(*self.sprt, stat=self.sprt_stat)

    def plan(self) -> list[PlannedGame]:
        if self.lineups:
            return plan_lineups(self.lineups, self.games, self.seed)
        if self.mode == MODE_CHALLENGE:
            return plan_challenge(self.bots[0], self.bots[1], self.players, self.games, self.seed)
        return plan_tournament(self.bots, self.players, self.games, self.seed)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["bots"] = list(self.bots)
        d["versions"] = list(self.versions)
        d["lineups"] = [list(lineup) for lineup in self.lineups]
        d["sprt"] = None if self.sprt is None else list(self.sprt)
        if self.game == default_name():
            del d["game"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentConfig:
        return cls(
            bots=tuple(d["bots"]),
            versions=tuple(d["versions"]),
            players=int(d["players"]),
            games=int(d["games"]),
            seed=int(d["seed"]),
            time_per_move_ms=float(d["time_per_move_ms"]),
            p2p=bool(d.get("p2p", False)),
            variant=bool(d.get("variant", False)),
            mode=str(d.get("mode", MODE_ROUND_ROBIN)),
            lineups=tuple(tuple(str(b) for b in lu) for lu in d.get("lineups") or ()),
            sprt=_four(d.get("sprt")),
            sprt_stat=str(d.get("sprt_stat", "elo")),
            stop_ci=None if d.get("stop_ci") is None else float(d["stop_ci"]),
            game=str(d.get("game") or default_name()),
        )

    def differences(self, other: TournamentConfig) -> list[str]:
        """``field: ours != theirs`` for every field that differs."""
        mine, theirs = self.as_dict(), other.as_dict()
        return [f"{k} {theirs[k]!r} != {mine[k]!r}" for k in mine if mine[k] != theirs[k]]


def _four(value: Any) -> tuple[float, float, float, float] | None:
    if value is None:
        return None
    a, b, c, d = (float(v) for v in value)
    return a, b, c, d


def game_timeout_s(
    players: int, budget_ms: float, rounds: int = UNUSED_ROUNDS, game: str | None = None
) -> float:
    """The longest a game may take when every bot uses its whole limit on every call.

    Every move may take the host's wait limit (the rule set bounds the moves: ``max_moves``);
    every lifecycle hook its hook limit, counted as two per round and seat and one more per
    seat (a game of fewer rounds only has more room). A worker still busy past this is stuck
    in something the host cannot interrupt.
    """
    moves = game_spec(game).rules.max_moves(players, rounds)
    hooks = players * (2 * rounds + 1)
    return (moves * wait_limit_ms(budget_ms) + hooks * max(HOOK_TIMEOUT_MS, budget_ms)) / 1000.0
