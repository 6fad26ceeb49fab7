"""A real Druids (2004) table of peers in one process, as the terminal UI's session.

The table is ``table_harness.LocalTable``'s: real :class:`TableMachine` s, each with its seat copy
and its mental card deck, exchanging their real signed messages (no sockets, no processes, no
clock). The seat list's first peer is the person (its play seat is the coin flip's): the session
posts what a peer's ``NetSession`` posts (each table event with a snapshot of its table view, a
move request when its machine waits for it) and plays the person's move through the machine's
own ``play`` (the table's one accept path); every other seat plays the rule policy on its own
copy's view, as a bot peer does.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from table_harness import LocalTable
from textual.message import Message

from druids_p2p.games.druids2004.policy import rule_move
from druids_p2p.games.druids2004.setup import Options
from druids_p2p.games.seam import IllegalMove
from druids_p2p.peer.runner import MachineView
from druids_p2p.table.table_state import TableEvent
from druids_p2p.tui.druids2004.lan_table import Snapshot2004, snapshot_from_table
from druids_p2p.tui.game_ui import MoveRejected, PeerEvent, Session, TurnRequest

MAX_STEPS = 200_000
"""More deliveries and bot moves than a whole game takes."""


class Table2004Session(Session):
    title = "in-process table of peers"

    def __init__(self, post: Callable[[Message], object], players: int = 2, seed: int = 0) -> None:
        self.post = post
        self.table = LocalTable(players=players, seed=seed, ruleset="druids2004")
        self.rng = random.Random(seed)
        self.options = Options(players=players)
        self.me = self.table.machines[0]
        self.view = MachineView(self.me)
        self.turn = 0
        self.asking = 0
        self.snapshots: list[tuple[Snapshot2004, set[int]]] = []
        """Every snapshot posted, in order, with the cards the person's deck had opened to it then
        (its hand can hold no other)."""
        self.me.listen(self._event)

    def _snap(self, turn: int | None) -> Snapshot2004:
        snap = snapshot_from_table(self.view, turn)
        self.snapshots.append((snap, self.known()))
        return snap

    def _event(self, event: TableEvent) -> None:
        data = {"event": event.kind, "text": event.text, **event.data}
        self.post(PeerEvent(data, self._snap(None)))

    def start(self) -> None:
        self.table.start_all()
        self._pump()

    def _pump(self) -> None:
        """Deliver everything and let the bots move until the person is asked or the game ends."""
        machines = self.table.machines
        for _ in range(MAX_STEPS):
            if self.table.queue:
                self.table.deliver_next()
                continue
            bots = [k for k in range(1, len(machines)) if machines[k].my_turn]
            if not bots:
                break
            k = bots[0]
            view = machines[k].view()
            self.table.broadcast(k, machines[k].play(rule_move(view, self.options, self.rng)))
        else:
            raise AssertionError("the table did not come to rest")
        if self.me.my_turn and not self.asking:
            self.turn += 1
            self.asking = self.turn
            self.post(TurnRequest(self._snap(self.turn)))

    def submit(self, move: int, turn: int) -> None:
        if turn != self.asking:
            return  # an answer to an earlier request
        try:
            raws = self.me.play(move)
        except IllegalMove as exc:
            self.post(MoveRejected(move, str(exc)))
            return
        self.asking = 0
        self.table.broadcast(0, raws)
        self._pump()

    def known(self) -> set[int]:
        """The cards the person's deck has opened to it so far."""
        play = self.me.card_play
        return set() if play is None else set(play.peer.known().values())
