"""Leaving: a player who leaves stops the table, with the reason in every record.

The arena (honest :class:`TableRunner` peers around real table machines, a bare cheating
machine) is ``attack_arena``; see its docstring for what is and is not real.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_arena import Arena, no_linger

from druids_p2p.lan.peer_config import Player
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import MsgType

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


def test_a_player_who_leaves_stops_the_table_with_the_reason_recorded(tmp_path: Path) -> None:
    """Leaving is not cheating: the table stops, blaming nobody, and every record says why."""
    arena = Arena(tmp_path, players=3, seed=40, cheater=None)  # type: ignore[arg-type]
    arena.run_to_play()

    class Leaving(Player):
        def wants_to_leave(self) -> bool:
            return True

    leaver = arena.runners[2]
    leaver.player = Leaving()
    with pytest.raises(TableFault) as stop:
        leaver._tick()
    leaver._abort(stop.value)
    assert stop.value.seat is None and "left the table" in stop.value.reason
    arena.run()
    for k in (0, 1):
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat is None and "left the table" in aborted.reason
    last = arena.machines[2].transcript.messages[-1]
    assert last.type is MsgType.ABORT and "left the table" in last.body["reason"]
