"""Function calls per move on a seeded in-process game: the move path's work, counted.

Plays one seeded Druids 2017 game at an in-process table (``tests/table_harness.LocalTable``: every
peer a real ``TableMachine``, messages signed and checked, no sockets) and counts, with cProfile,
the Python function calls the peers make to take the moves: the mover's own
(``TableMachine.play``), every other peer's taking of the move's message (``receive`` of a
``move``, or in version 2 of a ``table_show``), and in version 1 what a move set off besides (its
receipts, ``receive_receipt``, and its opening proof, checked after them in ``check_deferred``).
A call that ends a round is left out (its calls are the round's audit and the next deal, not a
move's), and so are the seats' words about their cards. The deal's share proofs of other seats'
cards that version 2 leaves for later (deck.md §10.2) are checked as a LAN peer checks them, on
the aside thread while the table waits (``TableMachine.check_while_idle``), so they count with
the deal, as version 1's deal checks did, not with the first move that shows such a card.
Calls are the same on every machine, unlike times, so two commits are compared anywhere: run it
with each tree first on ``PYTHONPATH``.

    PYTHONPATH=.:tests python3 tools/calls_per_move.py [--players 4] [--rounds 1] [--seed 1]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
from collections.abc import Callable
from typing import Any

from table_harness import LocalTable

from druids_p2p.table.table import TableMachine

MOVE_TYPES = ("MOVE", "TABLE_SHOW")
"""What carries a 2017 move (version 1: ``move``; version 2: ``table_show`` or ``move``)."""


def _is_move(msg: Any) -> bool:
    word = str(msg.body.get("move", "")).startswith("Word")
    return bool(msg.type.name in MOVE_TYPES and not word)


def _idle(machine: TableMachine) -> None:
    """What a LAN peer does while it waits: the deal's deferred share proofs checked aside, to
    the end (version 2; version 1 has no such check)."""
    if not hasattr(machine, "check_while_idle") or not machine.check_while_idle():
        return
    for _, check in machine.card_round.play.peer.state.aside.values():
        check.future.result(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    counted = {"calls": 0, "moves": 0}
    depth = [0]

    def counting(original: Any, wanted: Callable[..., bool]) -> Any:
        def entry(self: TableMachine, *rest: Any) -> Any:
            if depth[0] or not wanted(*rest):
                depth[0] += 1
                try:
                    return original(self, *rest)
                finally:
                    depth[0] -= 1
            _idle(self)
            before = (self.rounds_audited, self.finished)
            profiler = cProfile.Profile()
            depth[0] += 1
            profiler.enable()
            try:
                return original(self, *rest)
            finally:
                profiler.disable()
                depth[0] -= 1
                if (self.rounds_audited, self.finished) == before:
                    counted["calls"] += pstats.Stats(profiler).total_calls  # type: ignore[attr-defined]

        return entry

    def played(*_: Any) -> bool:
        counted["moves"] += 1
        return True

    TableMachine.play = counting(TableMachine.play, played)  # type: ignore[method-assign]
    TableMachine.receive = counting(TableMachine.receive, _is_move)  # type: ignore[method-assign]
    for name in ("receive_receipt", "check_deferred"):  # version 1's
        if hasattr(TableMachine, name):
            setattr(TableMachine, name, counting(getattr(TableMachine, name), lambda *_: True))
    seed = args.seed
    table = LocalTable(players=args.players, rounds=args.rounds, seed=seed, keys_seed=seed)
    table.run()
    assert all(m.finished for m in table.machines), "the game did not finish"
    moves = counted["moves"]
    calls = counted["calls"]
    print(json.dumps({"moves": moves, "calls": calls, "calls_per_move": round(calls / moves, 1)}))


if __name__ == "__main__":
    main()
