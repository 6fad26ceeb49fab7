"""The bot interface a plugin registers against, and hosting bots so none can break a game.  A bot
sees its seat's view, never the state, and is someone else's code: every call into it is guarded
(time, exceptions, illegal answers), with `random` as the baseline. The levels a person chooses
become bots here too, so a level is seated, measured and played as any other bot.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from druids_p2p.games.registry import default_name, game_spec
from druids_p2p.games.seam import CommonRuleset
from druids_p2p.games.spec import Bot, BotFactory, Level

__all__ = ["Bot", "BotFactory", "BotSpec", "LevelBot", "RegisterBot", "level_factory"]


# The levels a person chooses (``easy``, ``normal``, ``hard``) as bots any table can seat.
class LevelBot(Bot):
    """A game's bot at a level: its budget capped at the level's, and a share of its moves
    replaced by a random legal one (the level's ``blunders``)."""

    def __init__(self, level: Level, inner: Bot) -> None:
        super().__init__()
        self.level = level
        self.inner = inner
        self.slips = random.Random(0)

    def start_game(
        self, seat: int, options: Any, rng: random.Random, time_budget_ms: float
    ) -> None:
        super().start_game(seat, options, rng, time_budget_ms)
        if self.level.blunders:  # a level without slips plays its bot move for move
            self.slips = random.Random(rng.getrandbits(64))
        cap = self.level.budget_ms
        budget = time_budget_ms if cap is None else min(cap, time_budget_ms)
        self.inner.start_game(seat, options, rng, budget)

    def choose(self, view: Any) -> Any:
        move = self.inner.choose(view)  # asked every move: a bot may keep memory between them
        if self.level.blunders and self.slips.random() < self.level.blunders:
            legal = view.legal
            return int(legal[self.slips.randrange(len(legal))])
        return move

    def end_round(self, view: Any) -> None:
        self.inner.end_round(view)

    def end_game(self, view: Any) -> None:
        self.inner.end_game(view)


def level_factory(game: str, name: str) -> BotFactory:
    """What makes game ``game``'s bot for level ``name`` (the spec's :meth:`GameSpec.level`)."""
    from druids_p2p.bots.host import RandomBot

    spec = game_spec(game)
    level = spec.level(name)
    inner: BotFactory = RandomBot if level.bot == "random" else spec.bots[level.bot]

    def make() -> Bot:
        return LevelBot(level, inner())

    make.__doc__ = f"Level {name}: {level.describe()}."
    return make


# The bot interface a plugin registers against, and hosting bots so none can break a game.


def _default_games() -> tuple[str, ...]:
    return (default_name(),)


@dataclass(frozen=True)
class BotSpec:
    """What a plugin registers: a named, versioned way to make a bot."""

    name: str
    factory: BotFactory
    version: str = "0"
    description: str = ""
    source: str = field(default="built-in", compare=False)
    games: tuple[str, ...] = field(default_factory=_default_games)
    """The games this bot plays (their names in the registry, ``druids_p2p.games.registry``);
    by default the default game."""
    factories: tuple[tuple[str, BotFactory], ...] = ()
    """Game-specific factories (``factory`` makes the bot for every other game it plays)."""

    def plays(self, game: str) -> bool:
        return game in self.games

    def about(self) -> str:
        """What ``druids bots`` says of it: its description, else the first paragraph of its
        factory's docstring (a game's own bots: their modules are imported only then)."""
        if self.description:
            return self.description
        return " ".join((self.factory.__doc__ or "").strip().split("\n\n")[0].split())

    def factory_for(self, game: str) -> BotFactory:
        """The factory of this bot for ``game``; ValueError (one line) if it does not play it."""
        if game not in self.games:
            raise ValueError(
                f"bot {self.name!r} does not play {game} (it plays {', '.join(self.games)})"
            )
        return dict(self.factories).get(game, self.factory)


class RegisterBot(Protocol):
    """The ``register`` callback of the ``druids_register_bots`` hook (``druids_p2p.hookspecs``).

    Call it with a :class:`BotSpec`, or with the spec's fields as keywords.
    Invalid registrations are not raised into the plugin: the host reports the plugin and skips it.
    """

    def __call__(
        self,
        spec: BotSpec | None = None,
        /,
        *,
        name: str | None = None,
        factory: BotFactory | None = None,
        version: str = "0",
        description: str = "",
    ) -> None: ...


class RandomBot(Bot):
    """Plays uniformly at random among ``view.legal``; reproducible through its seeded rng."""

    def choose(self, view: Any) -> int:
        legal = view.legal
        return int(legal[self.rng.randrange(len(legal))])


# Hosting bots: every call into bot code is guarded, so a broken bot cannot break a game.
#
# A bot is someone else's code. It may raise, return nonsense, return an illegal move or hang. The
# host turns each of those into a *fault* (a line of text for the table and the tournament report)
# and plays a safe legal move for that seat instead — its game's (the spec's ``fallback``: a
# deterministic choice well under a millisecond, by default the first legal move) — so the game
# always finishes and every peer can compute the same fallback.
#
# Time is enforced by running the bot on a worker thread and waiting ``budget × GRACE_FACTOR +
# GRACE_MS``; a result that comes later is discarded. Python cannot kill a thread, so a bot that
# overran keeps its seat on fallback moves until its late call returns (it is then asked again).
#
# The host meets the game through the seam and the registry (``druids_p2p.games``): a bot answers a
# move id or its game's ``Move`` value, read here once as the id (:func:`answer_id`); a move's
# token is the game's ``Move.token()``, and only the fallback is the game's own.
# :func:`druids_p2p.bots.local_game.play_local_game` plays a whole game in-process with it.


DEFAULT_BUDGET_MS = 100.0
GRACE_FACTOR = 2.0
GRACE_MS = 50.0
HOOK_TIMEOUT_MS = 2000.0
"""At least this long for ``start_game``/``end_round``/``end_game``, which have no move budget."""


def wait_limit_ms(budget_ms: float) -> float:
    """How long the host waits for a move before it gives up on the bot."""
    return budget_ms * GRACE_FACTOR + GRACE_MS


def derive_rng(seed: int, purpose: str, index: int) -> random.Random:
    """An independent, reproducible stream per (game seed, purpose, index).

    String seeds are hashed with SHA-512 by ``random.seed``, so the streams do not depend on
    ``PYTHONHASHSEED`` and a deal depends only on the game seed and the round, not on the bots.
    """
    return random.Random(f"druids/{seed}/{purpose}/{index}")


# ---------------------------------------------------------------------- one move
@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """The move the seat plays, why the bot's own answer was not used (if so), and the time."""

    move: int
    fault: str | None
    elapsed_ms: float


class MoveView(Protocol):
    """What the host reads of any game's view: the legal moves of the seat to move."""

    @property
    def legal(self) -> Sequence[int]: ...


def answer_id(answer: object, rules: CommonRuleset) -> object:
    """A bot's answer as the engine reads it: the game's own ``Move`` value as its id, once,
    where the answer enters (each value is made once per id, so it is this game's exactly
    when ``Move.of`` of its id is the very object); anything else as it is."""
    move_id = getattr(answer, "id", None)
    if isinstance(move_id, int) and not isinstance(move_id, bool):
        try:
            if rules.Move.of(move_id) is answer:
                return move_id
        except ValueError:
            pass
    return answer


def check_answer(answer: object, view: MoveView, rules: CommonRuleset) -> str | None:
    """None if ``answer`` (read by :func:`answer_id`) is one of ``view.legal``, else the fault
    text (tokens by ``rules``)."""
    if isinstance(answer, bool) or not isinstance(answer, int):
        shown = repr(answer)
        if len(shown) > 40:
            shown = shown[:37] + "..."
        return f"returned {shown} ({type(answer).__name__}), not a move id (int) nor a Move"
    if answer not in view.legal:
        try:
            token = rules.Move.of(answer).token()
        except ValueError:
            token = "unknown"
        legal = " ".join(rules.Move.of(m).token() for m in view.legal[:12])
        more = " ..." if len(view.legal) > 12 else ""
        return f"returned illegal move {answer} ({token}); legal: {legal}{more}"
    return None


def _error_text(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Call:
    """One call handed to a worker thread; ``done`` is set when it has returned or raised."""

    __slots__ = ("args", "done", "elapsed_ms", "error", "fn", "result")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.elapsed_ms = 0.0

    def run(self) -> None:
        start = time.perf_counter()
        try:
            self.result = self.fn(*self.args)
        except BaseException as exc:  # a bot's SystemExit must not end the host either
            self.error = exc
        self.elapsed_ms = (time.perf_counter() - start) * 1000.0
        self.done.set()


def _worker(jobs: queue.SimpleQueue[_Call | None]) -> None:
    while True:
        job = jobs.get()
        if job is None:
            return
        job.run()


class BotRunner:
    """Runs one bot's calls on its own daemon thread, with a time limit on each.

    With ``enforce=False`` calls run directly on the caller's thread (no limit, no thread
    hand-off): for trusted bots in long tournaments where speed matters more than safety.
    """

    def __init__(
        self,
        bot: Bot,
        budget_ms: float = DEFAULT_BUDGET_MS,
        enforce: bool = True,
        game: str | None = None,
    ):
        self.bot = bot
        self.budget_ms = budget_ms
        self.enforce = enforce
        spec = game_spec(game)
        self.rules: CommonRuleset = spec.rules
        self.fallback = spec.fallback
        self._jobs: queue.SimpleQueue[_Call | None] | None = None
        self._late: _Call | None = None

    @property
    def busy(self) -> bool:
        """True while a call that overran its limit is still running on the worker."""
        return self._late is not None and not self._late.done.is_set()

    def call(self, fn: Callable[..., Any], *args: Any, limit_ms: float) -> _Call | str:
        """Run ``fn(*args)``; the finished call, or the fault text if it did not finish in time."""
        if not self.enforce:
            job = _Call(fn, args)
            job.run()
            return job
        if self.busy:
            return "still busy with an earlier call that overran its time"
        self._late = None
        if self._jobs is None:
            self._jobs = queue.SimpleQueue()
            threading.Thread(target=_worker, args=(self._jobs,), daemon=True).start()
        job = _Call(fn, args)
        self._jobs.put(job)
        if job.done.wait(limit_ms / 1000.0):
            return job
        self._late = job
        # The stuck worker exits once its call returns; the next call gets a fresh worker.
        self._jobs.put(None)
        self._jobs = None
        return f"no answer within {limit_ms:.0f} ms (budget {self.budget_ms:g} ms)"

    def choose(self, view: MoveView) -> MoveOutcome:
        """Ask the bot for a move; on any fault, the fallback move and the fault text."""
        start = time.perf_counter()
        job = self.call(self.bot.choose, view, limit_ms=wait_limit_ms(self.budget_ms))
        if isinstance(job, str):
            fault: str | None = job
            elapsed = (time.perf_counter() - start) * 1000.0
        else:
            elapsed = job.elapsed_ms
            if job.error is not None:
                fault = "raised " + _error_text(job.error)
            else:
                answer = answer_id(job.result, self.rules)
                fault = check_answer(answer, view, self.rules)
                if fault is None and isinstance(answer, int):
                    return MoveOutcome(answer, None, elapsed)
        return MoveOutcome(self.fallback(view), fault, elapsed)

    def hook(self, fn: Callable[..., Any], *args: Any) -> str | None:
        """Call a lifecycle hook (``start_game``...); the fault text if it raised or hung."""
        if self.busy:
            return None  # still stuck in a move: its fault is already reported
        job = self.call(fn, *args, limit_ms=max(HOOK_TIMEOUT_MS, wait_limit_ms(self.budget_ms)))
        if isinstance(job, str):
            return job
        return None if job.error is None else "raised " + _error_text(job.error)

    def close(self) -> None:
        """Let the worker thread end (a stuck one ends when its call returns)."""
        if self._jobs is not None:
            self._jobs.put(None)
            self._jobs = None


def choose_move(
    bot: Bot,
    view: MoveView,
    budget_ms: float = DEFAULT_BUDGET_MS,
    enforce: bool = True,
    game: str | None = None,
) -> MoveOutcome:
    """One guarded move: the bot's answer if it is legal and in time, else a fallback and why.

    A one-off: it starts a worker thread for this call. Games use a :class:`BotRunner` per seat,
    which keeps its thread and knows when the bot is still stuck in an earlier move.
    """
    runner = BotRunner(bot, budget_ms, enforce, game)
    try:
        return runner.choose(view)
    finally:
        runner.close()


# ------------------------------------------------------------------------- faults
@dataclass(frozen=True, slots=True)
class Fault:
    """A bot's misbehaviour: where it happened and what the host did about it."""

    seat: int
    bot: str
    round: int
    """0-based round; -1 for ``start_game``, which comes before the first deal."""
    move_index: int | None
    """Index into that round's ``moves`` for a move fault (the move is the fallback played)."""
    stage: str
    """``choose``, ``start_game``, ``end_round`` or ``end_game``."""
    text: str

    def __str__(self) -> str:
        where = "before the game" if self.round < 0 else f"round {self.round + 1}"
        if self.move_index is not None:
            where += f", move {self.move_index + 1}"
        return f"seat {self.seat} ({self.bot}), {where}, {self.stage}: {self.text}"
