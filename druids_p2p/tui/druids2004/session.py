"""A Druids (2004) table without the network, for ``--offline``, the screen's tests and screenshots.
The log is the game's public story plus the person's own cards, never another seat's hidden card; a
bot that raises or answers an illegal move plays ``Stop`` (or its first legal move) instead.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from druids_p2p.bots.host import Bot
from druids_p2p.games.druids2004 import cards as mv
from druids_p2p.games.druids2004.cards import KIND_NAMES, format_card, is_gem, place_kind
from druids_p2p.games.druids2004.notation import dumps
from druids_p2p.games.druids2004.ruleset import ENDS, MAX_STEPS, advance
from druids_p2p.games.druids2004.setup import (
    Discarded,
    Drew,
    GameEnded,
    Options,
    Played,
    Record,
    Reshuffled,
    RitualDone,
    Setup,
    Stopped,
    TurnEnded,
    random_setup,
)
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import SeatView


def place_name(place: int) -> str:
    """``@K1 (black)``: the token and the kind in words."""
    return f"{format_card(place)} ({KIND_NAMES[place_kind(place)]})"


@dataclass(frozen=True, slots=True)
class TableEvent:
    """One line of the table's log; ``ritual`` set when the line announces one (the UI shows its
    results step by step until the person has read them)."""

    text: str
    seat: int | None = None
    ritual: RitualDone | None = None


@dataclass(slots=True)
class Offline2004:
    """Seat ``seat`` is the person; every other seat is the bot given for it (seat order)."""

    names: tuple[str, ...]
    bots: dict[int, Bot]
    seat: int = 0
    seed: int = 0
    options: Options | None = None
    setup: Setup | None = None
    budget_ms: float = 100.0
    events: list[TableEvent] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    game: Game2004 = field(init=False)
    _rng: random.Random = field(init=False)
    _seen: int = field(init=False, default=0)
    lock: threading.RLock = field(init=False, default_factory=threading.RLock)
    """Held by every call that reads or changes the game: the UI moves the bots on a worker
    thread while it draws and saves from its own."""

    def __post_init__(self) -> None:
        n = len(self.names)
        opts = self.options or Options(players=n)
        if opts.players != n:
            raise ValueError(f"{n} names for a {opts.players}-player game")
        if sorted([*self.bots, self.seat]) != list(range(n)):
            raise ValueError("every seat but the person's needs a bot")
        self.options = opts
        self._rng = random.Random(self.seed)
        self.game = Game2004(self.setup or random_setup(self._rng, n), opts)

    # ----------------------------------------------------------------- reading
    def name(self, seat: int) -> str:
        return "you" if seat == self.seat else self.names[seat]

    def view(self) -> SeatView:
        with self.lock:
            return self.game.view(self.seat)

    @property
    def my_turn(self) -> bool:
        return self.game.to_move == self.seat

    @property
    def bots_to_move(self) -> bool:
        """A bot is to decide (or a reserve to be reshuffled) before the person is."""
        with self.lock:
            game = self.game
            return game.pending_reshuffle is not None or game.to_move not in (None, self.seat)

    def take_events(self) -> list[TableEvent]:
        """The log lines since the last call (the UI shows them in order)."""
        with self.lock:
            out, self.events = self.events, []
        return out

    def record_text(self) -> str:
        """The whole game in the 2004 notation (``druids replay --game druids2004``)."""
        with self.lock:
            return dumps(self.game)

    # ----------------------------------------------------------------- playing
    def start(self, *, then_bots: bool = True) -> None:
        first = self.game.setup.start
        row = " ".join(place_name(p) for p in self.game.setup.places[:6])
        self.events.append(TableEvent(f"Druids (2004): {self.name(first)} starts; places {row}"))
        for seat, bot in self.bots.items():
            try:
                bot.start_game(
                    seat, self.game.options, random.Random(self.seed * 31 + seat), self.budget_ms
                )
            except Exception as exc:  # a bot's fault is recorded, never the table's end
                self.faults.append(f"{self.names[seat]}: start_game raised {exc!r}")
        if then_bots:
            self.advance()

    def submit(self, move: int, *, then_bots: bool = True) -> str | None:
        """Play the person's ``move``: None when played (the bots then move until the person's
        next decision, unless ``then_bots`` is False: the UI moves them on a worker thread with
        :meth:`bot_step`), else the reason it is refused, in the engine's words."""
        with self.lock:
            return self._submit(move, then_bots)

    def _submit(self, move: int, then_bots: bool) -> str | None:
        if self.game.game_over:
            return "the game is over"
        if not self.my_turn:
            return "it is not your turn"
        reason = self.game.check(move)
        if reason is not None:
            return reason
        self._apply(move)
        if then_bots:
            self.advance()
        return None

    def bot_step(self) -> int | None:
        """Reshuffle due reserves, then one bot decision: the seat that moved, or None when the
        person is to decide or the game is over. The bot thinks without the lock (on its own
        frozen view), so the screen can draw meanwhile."""
        with self.lock:
            advance(self.game, self._rng)  # due reserves reshuffled, as the deck does
            self._log_new()
            seat = self.game.to_move
            if seat is None or seat == self.seat:
                return None
            view = self.game.view(seat)
        move = self._bot_move(seat, view)
        with self.lock:
            self._apply(move)
        return seat

    def advance(self) -> None:
        """The bots move until the person decides or the game ends."""
        for _ in range(MAX_STEPS):
            if self.bot_step() is None:
                return
        raise RuntimeError(f"the bots made {MAX_STEPS} moves without the game ending")

    def _bot_move(self, seat: int, view: SeatView) -> int:
        try:
            choose: Callable[[Any], object] = self.bots[seat].choose
            move = choose(view)
        except Exception as exc:
            self.faults.append(f"{self.names[seat]}: choose raised {exc!r}")
            move = -1
        if isinstance(move, bool) or not isinstance(move, int) or move not in view.legal:
            if move != -1:
                self.faults.append(f"{self.names[seat]}: illegal answer {move!r}")
            move = mv.STOP if mv.STOP in view.legal else view.legal[0]
        return move

    def _apply(self, move: int) -> None:
        self.game.play(move)
        self._log_new()

    def _log_new(self) -> None:
        for record in self.game.log[self._seen :]:
            event = self.describe(record)
            if event is not None:
                self.events.append(event)
        self._seen = len(self.game.log)

    # ------------------------------------------------------------- the story
    def describe(self, record: Record) -> TableEvent | None:
        """The public line for a record, with the card only when it is the person's own."""
        if isinstance(record, Played):
            who, mine = self.name(record.seat), record.seat == self.seat
            slot = record.slot + 1
            if mine:
                what = format_card(record.card)
            else:
                what = "a gem" if is_gem(record.card) else "a servant"
            return TableEvent(
                f"{who} {'play' if mine else 'plays'} {what} onto place {slot}", record.seat
            )
        if isinstance(record, Drew):
            who, mine = self.name(record.seat), record.seat == self.seat
            where = (
                "the gem pile" if record.source == "gem" else f"{'your' if mine else 'its'} reserve"
            )
            what = (
                format_card(record.card)
                if mine
                else ("a gem" if record.source == "gem" else "a servant")
            )
            return TableEvent(
                f"{who} {'draw' if mine else 'draws'} {what} from {where}", record.seat
            )
        if isinstance(record, Discarded):
            mine = record.seat == self.seat
            what = format_card(record.card) if mine else "a gem"
            verb = "discard" if mine else "discards"
            return TableEvent(f"{self.name(record.seat)} {verb} {what} face down", record.seat)
        if isinstance(record, RitualDone):
            verb = "announce" if record.seat == self.seat else "announces"
            where = f"place {record.slot + 1}, {place_name(record.place)}"
            text = f"{self.name(record.seat)} {verb} a ritual on {where}"
            return TableEvent(text, record.seat, record)
        if isinstance(record, Reshuffled):
            owner = "your" if record.seat == self.seat else f"{self.names[record.seat]}'s"
            return TableEvent(f"{owner} reserve is shuffled again ({len(record.order)} servants)")
        if isinstance(record, Stopped):
            mine = record.seat == self.seat
            return TableEvent(
                f"{self.name(record.seat)} {'end' if mine else 'ends'} the turn", record.seat
            )
        if isinstance(record, TurnEnded):
            if record.active:
                return None
            return TableEvent(f"{self.name(record.seat)}: a turn with nothing to do", record.seat)
        if isinstance(record, GameEnded):
            winners = " and ".join(self.name(w) for w in record.winners)
            return TableEvent(f"Game over: {ENDS[record.reason]}; won by {winners}")
        return None
