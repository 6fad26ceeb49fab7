"""The Druids (2004) table against in-process bots, its app, and the terminal UI its spec names.

The UI (GameSpec.ui) gathers the table at a table of peers, this offline table and the record
viewer; it is the one name the game's spec gives the neutral shell."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.worker import get_current_worker

from druids_p2p.bots.host import Bot
from druids_p2p.games.druids2004.ruleset import ENDS, MAX_STEPS, Druids2004Ruleset
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.tui.druids2004.board import Board2004, in_ui_words, what_now
from druids_p2p.tui.druids2004.dialogs import ConfirmLeave, GameOver2004
from druids_p2p.tui.druids2004.lan_table import TABLE_UI
from druids_p2p.tui.druids2004.places import end_lines
from druids_p2p.tui.druids2004.replay import Replay2004App
from druids_p2p.tui.druids2004.session import Offline2004, TableEvent
from druids_p2p.tui.game_ui import NO_PREFS, Evening, GameUI, PlayedGame, TablePrefs
from druids_p2p.tui.widgets import COACH_KEY, ask_coach, chat_line

# The Druids (2004) table against in-process bots (``druids play``) and its app: the shared
# board over an offline session, the bots moving on a worker thread so the screen stays live.


__all__ = ["Table2004Screen", "in_ui_words", "what_now"]


class Table2004Screen(Board2004):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "leave", "quit"),
        Binding("ctrl+c", "leave", "quit", show=False, priority=True),  # asked first, as q
    ]

    def __init__(
        self,
        session: Offline2004,
        on_end: Callable[[dict[str, Any]], None],
        pause_s: float = 0.0,
        prefs: TablePrefs = NO_PREFS,
    ) -> None:
        """``pause_s``: how long each bot's finished turn stays in view before the next bot
        moves (``--move-pause``; 0 in tests); ``prefs``: the person's (tui/game_ui.py)."""
        assert session.options is not None
        super().__init__(session.names, session.options.column_spaces, prefs)
        self.session = session
        self.on_end = on_end
        self.pause_s = pause_s
        self.busy = False
        """The bots are moving on the worker thread: keys that play are refused."""
        self.shown: SeatView | None = None
        self.ended = False

    def on_mount(self) -> None:
        self.session.start(then_bots=False)
        self.refresh_table()
        self._run_bots()

    @property
    def view(self) -> SeatView:
        """The view last drawn (the game may be moving on the worker thread)."""
        if self.shown is None:
            self.shown = self.session.view()
        return self.shown

    def current_view(self) -> SeatView:
        return self.view

    def seat_name(self, seat: int) -> str:
        return self.session.name(seat)

    def refresh_table(self) -> None:
        """Draw the seat's view, write the new log lines, queue the new rituals."""
        self._log(self.session.take_events())
        self.shown = self.session.view()
        self.draw()

    def _log(self, events: list[TableEvent]) -> None:
        for event in events:
            self.log_line(event.text, event.seat)
            if event.ritual is not None:
                self.rituals_waiting.append(event.ritual)

    def rituals_read(self) -> None:
        """Once every ritual is read: the end of the game, if it has come."""
        if self.view.game_over and not self.ended:
            self.ended = True
            view, names = self.view, tuple(self.session.names)
            game = PlayedGame(names, tuple(view.scores), tuple(view.winners or ()), self.me)
            evening = getattr(self.app, "evening", None)
            lines: list[str] = []
            if isinstance(evening, Evening):
                evening.note(self, game)
                lines = evening.lines()
            rematch = bool(getattr(self.app, "can_rematch", False))
            screen = GameOver2004(self.final_lines(), lines, rematch)
            self.app.push_screen(screen, self._game_over_read)

    @property
    def me(self) -> str:
        return str(self.session.names[self.session.seat])

    def final_lines(self) -> list[str]:
        view, s = self.view, self.session
        winners = view.winners or ()
        lines = [f"The game ended: {ENDS.get(view.ended_by or '', view.ended_by)}."]
        for seat in sorted(range(view.players), key=lambda q: -view.scores[q]):
            mark = "  ← won" if seat in winners else ""
            lines.append(f"{s.name(seat):>12}: {view.scores[seat]:3} points{mark}")
        return lines + end_lines(view, s.name)

    def outcome(self) -> dict[str, Any]:
        view = self.view
        return {
            "game": "druids2004",
            "names": list(self.session.names),
            "my_seat": self.session.seat,
            "result": {
                "finished": view.game_over,
                "totals": list(view.scores),
                "winners": list(view.winners or ()),
                "ended_by": view.ended_by,
            },
        }

    def _game_over_read(self, _: None) -> None:
        self.on_end(self.outcome())

    # ------------------------------------------------------------------- bots
    def _run_bots(self) -> None:
        """Let the bots move on a worker thread, so the screen stays live while they think."""
        if self.session.bots_to_move:
            self.busy = True
            self.refresh_table()
            self.run_worker(self._bots, thread=True, exclusive=True, group="bots")

    def _bots(self) -> None:
        worker = get_current_worker()
        session = self.session
        for _ in range(MAX_STEPS):
            if worker.is_cancelled:
                return
            seat = session.bot_step()
            if seat is None:
                break
            if self.pause_s > 0 and session.view().turn_seat != seat:
                self.app.call_from_thread(self.refresh_table)
                time.sleep(self.pause_s)
        if not worker.is_cancelled:
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                self.app.call_from_thread(self._bots_done)

    def _bots_done(self) -> None:
        self.busy = False
        self.refresh_table()

    # ----------------------------------------------------------------- playing
    def submit_move(self, move: int) -> None:
        self._submit(move)

    def _submit(self, move: int) -> None:
        self.ritual_mode = False
        if self.busy:
            self.refuse("wait: the other players are still moving")
            return
        reason = self.session.submit(move, then_bots=False)
        self.message = "" if reason is None else in_ui_words(reason, self.session.seat)
        if reason is not None:
            self.app.bell()
        self.refresh_table()
        if reason is None:
            self._run_bots()

    def action_leave(self) -> None:
        if self.view.game_over:
            self.on_end(self.outcome())
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.on_end({**self.outcome(), "stopped": "you left the table"})

        self.app.push_screen(ConfirmLeave(), answered)


RECORD_NAME = "record-2004.json"


class Druids2004App(App[dict[str, Any] | None]):
    TITLE = "Druids (2004)"
    BINDINGS: ClassVar[list[BindingType]] = [COACH_KEY]
    """You and your bots on this machine: the coach is on (``a``)."""

    def __init__(
        self,
        session: Offline2004,
        folder: Path | None = None,
        pause_s: float = 0.0,
        rematch: Callable[[int], Offline2004] | None = None,
        prefs: TablePrefs = NO_PREFS,
    ) -> None:
        """``pause_s``: each bot's finished turn stays in view this long (``--move-pause``);
        ``rematch``: a new game of the same players from a seed (None: no rematch offered);
        ``prefs``: the person's (the legend the first time, ``--confirm-plays``)."""
        super().__init__()
        self.session = session
        self.folder = folder
        self.pause_s = pause_s
        self.prefs = prefs
        self.rematch = rematch
        self.evening = Evening()
        self.games = 1
        self.table = Table2004Screen(session, self.finish, pause_s, prefs)

    @property
    def can_rematch(self) -> bool:
        return self.rematch is not None

    def on_mount(self) -> None:
        self.push_screen(self.table)

    def action_coach(self) -> None:
        """``a``: the coach on the position on show, on your move."""
        table = self.table
        view = table.view
        mine = view.to_move == self.session.seat and not table.busy and not view.game_over

        def show(line: str) -> None:
            table.log_line(chat_line({"event": "coach", "text": line}))

        ask_coach(table, view if mine else None, show)

    def _record(self) -> Path | None:
        """Write this game's record (when there is a folder); its path."""
        if self.folder is None:
            return None
        name = RECORD_NAME if self.games == 1 else f"record-2004-{self.games}.json"
        path = self.folder / name
        path.write_text(self.session.record_text(), encoding="utf-8")
        return path

    def action_rematch(self) -> None:
        """The end screen's ``r``: this game's record kept, a new game of the same players."""
        if self.rematch is None or not self.table.ended:
            self.bell()
            return
        self._record()
        while len(self.screen_stack) > 1 and self.screen is not self.table:
            self.pop_screen()
        self.games += 1
        self.session = self.rematch(random.SystemRandom().randrange(2**32))
        self.table = Table2004Screen(self.session, self.finish, self.pause_s, self.prefs)
        self.switch_screen(self.table)

    def finish(self, outcome: dict[str, Any]) -> None:
        """Write the record (when there is a folder) and leave with the outcome."""
        path = self._record()
        if path is not None:
            outcome = {**outcome, "record": str(path), "folder": str(self.folder)}
        self.exit({**outcome, "evening": self.evening.to_json()})


# Druids (2004)'s terminal UI, as its spec names it (``GameSpec.ui``): its table at a table of
# peers (``lan_table.py``), its table against in-process bots, the viewer of a table's
# record (``replay.py``; the offline table's record, in the notation, is replayed as JSON by
# ``druids replay``).


def offline_app(
    names: Sequence[str],
    bots: Mapping[int, Bot],
    *,
    seat: int,
    seed: int,
    budget_ms: float,
    folder: Path | None,
    pause_s: float,
    prefs: TablePrefs = NO_PREFS,
) -> Druids2004App:
    """You at ``seat`` and ``bots`` (by seat) on this machine; the record kept in ``folder``."""

    def new_game(game_seed: int) -> Offline2004:
        return Offline2004(tuple(names), dict(bots), seat=seat, seed=game_seed, budget_ms=budget_ms)

    return Druids2004App(new_game(seed), folder, pause_s=pause_s, rematch=new_game, prefs=prefs)


UI = GameUI(
    name=Druids2004Ruleset.name,
    table=TABLE_UI,
    offline=offline_app,
    replay=Replay2004App,
    legend=True,
)
