"""The one in-process game loop: any rule set, through the seam, every bot call guarded.

The host, tournaments, ``druids demo`` and ``druids bench bots`` all play here, so a registered
game plays everywhere as it is. Chance and each seat's bot draw from ``derive_rng(seed, ...)``
separately, so rotating bots over the seats of one seed gives duplicate games.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from druids_p2p.bots import BuiltinBots
from druids_p2p.bots.host import DEFAULT_BUDGET_MS, Bot, BotRunner, BotSpec, Fault, derive_rng
from druids_p2p.games.registry import game_spec
from druids_p2p.games.seam import CommonGameState, CommonRuleset

MAX_STEPS = 100_000
"""No game takes this many moves and chance steps (each game's own end rules bound it far lower)."""

Player = BotSpec | Bot | Callable[[], Bot] | str
"""What :func:`play_local_game` seats: a spec, a fresh bot, a factory, or a registered name."""

Running = Callable[[int | None], None]
"""Told whose code runs from now on: a seat's bot, or None for the engine (a worker's trace)."""


class BotLookup(Protocol):
    """Finds a bot by name: the plugin registry (``druids_p2p.plugins.BotRegistry``), or the
    built-in bots (:class:`~druids_p2p.bots.BuiltinBots`) when none is given."""

    def get(self, name: str) -> BotSpec: ...


@dataclass(slots=True)
class RoundRecord:
    """One round as played: the deal, every move with its seat and time, and the scores.

    A game not dealt round by round is one round with no hands."""

    hands: list[list[int]]
    moves: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)
    """Time the bot took for each move (the wait, for a move that timed out)."""
    scores: list[int] = field(default_factory=list)
    ended_by: str = ""


@dataclass(slots=True)
class LocalGameResult:
    """Everything a tournament needs from one game."""

    seed: int
    game: str
    """The rule set's name."""
    options: Any
    """The game's options (its spec's ``options`` type)."""
    names: list[str]
    """Bot name per seat."""
    rounds: list[RoundRecord]
    totals: list[int]
    winners: list[int]
    faults: list[Fault]
    elapsed_ms: float
    state: CommonGameState = field(repr=False, compare=False)
    """The game at its end (what :meth:`record` writes down)."""

    @property
    def round_scores(self) -> list[list[int]]:
        return [r.scores for r in self.rounds]

    @property
    def ended_by(self) -> str:
        """How the last round ended."""
        return self.rounds[-1].ended_by if self.rounds else ""

    def moves_of(self, seat: int) -> int:
        return sum(r.seats.count(seat) for r in self.rounds)

    def move_times_ms(self, seat: int) -> list[float]:
        """Every move time of ``seat``'s bot, in play order."""
        return [
            t for r in self.rounds for s, t in zip(r.seats, r.times_ms, strict=True) if s == seat
        ]

    def faults_of(self, seat: int) -> list[Fault]:
        return [f for f in self.faults if f.seat == seat]

    def record(self) -> dict[str, Any]:
        """The game in its rule set's record notation, for ``druids replay``."""
        rules = game_spec(self.game).rules
        return rules.record(
            self.state, [r.hands for r in self.rounds], [r.moves for r in self.rounds]
        )


@dataclass(slots=True)
class Seat:
    """How one seat plays: through its bot's guarded runner, or (``runner`` None) by drawing
    uniformly among the legal moves from ``rng`` without building a view — exactly the move the
    built-in ``random`` bot would make with that stream (a tournament's fast path)."""

    name: str
    runner: BotRunner | None
    rng: random.Random


def _nobody(seat: int | None) -> None:
    """The default :data:`Running`: nobody is told."""


def run_game(
    rules: CommonRuleset,
    options: Any,
    seed: int,
    seats: Sequence[Seat],
    budget_ms: float,
    running: Running = _nobody,
) -> LocalGameResult:
    """Play one whole game of ``rules`` between ``seats`` (in seat order): the loop itself.

    Faults are recorded and the seat plays the host's fallback move; ``running`` hears whose code
    runs before and after every bot call."""
    start = time.perf_counter()
    drawn: dict[tuple[str, int], random.Random] = {}

    def streams(purpose: str, index: int) -> random.Random:
        rng = drawn.get((purpose, index))
        if rng is None:
            rng = drawn[purpose, index] = derive_rng(seed, purpose, index)
        return rng

    names = [s.name for s in seats]
    faults: list[Fault] = []
    rounds: list[RoundRecord] = []
    game = rules.start(options, streams)
    for s, seat in enumerate(seats):
        if seat.runner is not None:
            running(s)
            text = seat.runner.hook(seat.runner.bot.start_game, s, options, seat.rng, budget_ms)
            if text:
                faults.append(Fault(s, names[s], -1, None, "start_game", text))
    running(None)
    record: RoundRecord | None = None
    perf = time.perf_counter
    table = rules.in_play(game)
    for _ in range(MAX_STEPS):
        mover = table.to_move
        if mover is None:
            if record is not None and (result := rules.round_result(game)) is not None:
                record.scores, record.ended_by = result
                _end_round(game, seats, len(rounds) - 1, faults, running)
                record = None
            if game.game_over:
                break
            hands = rules.chance(game, streams)
            if hands is not None:
                record = RoundRecord(hands=hands)
                rounds.append(record)
            table = rules.in_play(game)
            continue
        if record is None:  # a game that starts without a deal
            record = RoundRecord(hands=[])
            rounds.append(record)
        seat = seats[mover]
        runner = seat.runner
        if runner is None:
            t0 = perf()
            legal = table.legal_moves()
            move = legal[seat.rng.randrange(len(legal))]
            ms = (perf() - t0) * 1000.0
        else:
            running(mover)
            outcome = runner.choose(game.view(mover))
            running(None)
            move, ms = outcome.move, outcome.elapsed_ms
            if outcome.fault is not None:
                where = (len(rounds) - 1, len(record.moves))
                faults.append(Fault(mover, names[mover], *where, "choose", outcome.fault))
        table.play(move)
        record.moves.append(move)
        record.seats.append(mover)
        record.times_ms.append(ms)
    else:
        raise RuntimeError(f"a game of {rules.name} did not end within {MAX_STEPS} steps")
    return LocalGameResult(
        seed=seed,
        game=rules.name,
        options=options,
        names=names,
        rounds=rounds,
        totals=game.totals,
        winners=game.winners or [],
        faults=faults,
        elapsed_ms=(time.perf_counter() - start) * 1000.0,
        state=game,
    )


def _end_round(
    game: CommonGameState,
    seats: Sequence[Seat],
    index: int,
    faults: list[Fault],
    running: Running,
) -> None:
    """Every bot's ``end_round`` with its final view, and ``end_game`` after the last round."""
    last = game.game_over
    for s, seat in enumerate(seats):
        runner = seat.runner
        if runner is None:
            continue
        view = game.view(s)
        running(s)
        text = runner.hook(runner.bot.end_round, view)
        if text:
            faults.append(Fault(s, seat.name, index, None, "end_round", text))
        if last:
            text = runner.hook(runner.bot.end_game, view)
            if text:
                faults.append(Fault(s, seat.name, index, None, "end_game", text))
        running(None)


def make_bot(player: Player, lookup: BotLookup, game: str) -> tuple[str, Bot]:
    """The seat's name and a fresh bot for ``game``; ValueError if a spec does not play it,
    TypeError if a factory returns something else than a :class:`Bot`."""
    if isinstance(player, Bot):
        return getattr(player, "name", None) or type(player).__name__, player
    if isinstance(player, str):
        name, bot = player, lookup.get(player).factory_for(game)()
    elif isinstance(player, BotSpec):
        name, bot = player.name, player.factory_for(game)()
    else:
        bot = player()
        name = getattr(bot, "name", None) or type(bot).__name__
    if not isinstance(bot, Bot):
        raise TypeError(f"bot factory for {name!r} returned {type(bot).__name__}, not a Bot")
    return name, bot


def play_local_game(
    players: Sequence[Player],
    options: Any = None,
    seed: int = 0,
    budget_ms: float = DEFAULT_BUDGET_MS,
    *,
    game: str | None = None,
    enforce_budget: bool | Sequence[bool] = True,
    registry: BotLookup | None = None,
) -> LocalGameResult:
    """Play one whole game of ``game`` in-process between ``players`` (one per seat, in order).

    A bot's fault is recorded and its seat plays the fallback move; a bot *factory*'s exception
    propagates (nothing ran yet). ``registry`` resolves names (default: the built-in bots).
    """
    spec = game_spec(game)
    game, rules = spec.name, spec.rules
    options = options if options is not None else rules.make_options(len(players))
    if len(players) != options.players:
        raise ValueError(f"{len(players)} bots for a {options.players}-player game")
    lookup = registry if registry is not None else BuiltinBots()
    n = len(players)
    flags = [enforce_budget] * n if isinstance(enforce_budget, bool) else list(enforce_budget)
    made = [make_bot(p, lookup, game) for p in players]
    seats = [
        Seat(name, BotRunner(bot, budget_ms, flags[s], game), derive_rng(seed, "bot", s))
        for s, (name, bot) in enumerate(made)
    ]
    try:
        return run_game(rules, options, seed, seats, budget_ms)
    finally:
        for seat in seats:
            if seat.runner is not None:
                seat.runner.close()
