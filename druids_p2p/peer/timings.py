"""How long this peer's table took: each round's deal (wall and CPU) and each of its own moves,
from sending it to the table being ready for the next, classed by the deck operations it set off.
They go into the peer's result, which ``druids bench`` reads.
"""

from __future__ import annotations

import time

from druids_p2p.table.codec import move_kind
from druids_p2p.table.table import TableMachine

__all__ = ["Timings"]


class Timings:
    """The deal and move times of one seated table (module docstring)."""

    def __init__(self) -> None:
        self.deal_ms: list[float] = []
        self.deal_cpu_ms: list[float] = []
        """This process's CPU per deal (beside the wall ``deal_ms``): a shared machine's load
        moves the wall figure, much less this one."""
        self.latencies_ms: list[float] = []
        self.move_kinds: list[str] = []
        """At a card table, the class of each of ``latencies_ms`` (``table/codec.py``)."""
        self._deal_started: float | None = None
        self._deal_cpu_started = 0.0
        self._sent_at: float | None = None
        self._sent_in: object = None
        """The step our last move was sent in (a card table's latency ends in another one)."""
        self._ops_from = 0
        """The deck's operation count before our last move: the operations from there to the
        table's next move are what that move set off."""
        self._round = -1
        """The round the move being timed was made in (its end opens the next round's table)."""
        self._next: tuple[int, object] = (0, None)

    def round_started(self) -> None:
        self._deal_started = time.perf_counter()
        self._deal_cpu_started = time.process_time()

    def dealt(self, machine: TableMachine) -> None:
        """The round's deal is done once a move is due."""
        step = machine.step
        if step is not None and step.name == "card_move" and self._deal_started is not None:
            self.deal_ms.append((time.perf_counter() - self._deal_started) * 1000.0)
            self.deal_cpu_ms.append((time.process_time() - self._deal_cpu_started) * 1000.0)
            self._deal_started = None

    def moving(self, machine: TableMachine) -> None:
        """Our move is about to be played: where the table stands before it."""
        play = machine.card_play
        self._round = -1 if play is None else play.round_no
        # A move that completes its step at once (ours alone) leaves it before play() returns.
        self._next = (0 if play is None else len(play.peer.state.ops), machine.step)

    def moved(self) -> None:
        """Our move was played and is being sent: its clock starts."""
        self._sent_at = time.perf_counter()
        self._ops_from, self._sent_in = self._next

    def counted(self, machine: TableMachine) -> None:
        """Our move's clock stops once the table is ready for the next move (a draw: the
        others' shares of the drawn card are in)."""
        play = machine.card_play
        if play is None or self._sent_at is None:
            return
        step = machine.step
        ready = machine.phase != "play" or (
            step is not self._sent_in
            and step is not None
            and step.name in ("card_move", "card_word", "card_check")
            and not machine.own_pending_in_step()
        )
        if ready:
            took = (time.perf_counter() - self._sent_at) * 1000.0
            deck = play.peer.state
            done = [deck.ops[i].kind for i in range(self._ops_from, deck.done)]
            ended = machine.phase != "play" or play.round_no != self._round  # a round's end
            self.latencies_ms.append(took)
            self.move_kinds.append(move_kind(done, ended))
            self._sent_at = None
