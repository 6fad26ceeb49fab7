"""The network wing's rooms (issue 16): one job each, the runner driving the table machine only
through its methods, and players seeing a read-only view of the table, never the machine."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from attack_arena import Arena
from table_harness import game_of

from druids_p2p.games.druids2017.cards import N_DOMAIN_CARDS, move_for_card
from druids_p2p.lan.peer_config import Player, TableView
from druids_p2p.table.card_table_play import MOVE_TYPES, WORDS_CHECKS
from druids_p2p.table.table import TableMachine
from druids_p2p.tui.druids2017.snapshot import TableSnapshot, snapshot_from_table
from druids_p2p.tui.game_ui import MoveRejected, TurnRequest
from druids_p2p.tui.player import UIPlayer
from druids_p2p.tui.widgets import in_your_words
from druids_p2p.wire import decode

ROOT = Path(__file__).resolve().parent.parent
WING = [ROOT / "druids_p2p" / p for p in ("lan", "table", "peer", "audit")]
"""The packages the network wing (once ``net/``) is split into, by job."""
ROOMS = ["peer_config", "lobby", "runner", "liveness", "ending", "session", "mesh"]
"""What ``net/peer.py`` (six jobs, 1,201 lines) became."""
DRIVERS = ["runner", "liveness", "ending", "session"]
"""The rooms that drive a table machine."""
MACHINE_INSIDES = {"transcript", "chain", "pending", "on_event", "heads", "seating", "deck"}
"""What the machine keeps to itself: a driver reads none of it and writes nothing at all."""


def _room(name: str) -> Path:
    """The one file of the network wing called ``name``."""
    (path,) = [package / f"{name}.py" for package in WING if (package / f"{name}.py").exists()]
    return path


def test_net_peer_is_gone_and_each_room_of_the_network_wing_is_short() -> None:
    assert not any((package / "peer.py").exists() for package in WING)
    for room in ROOMS:
        lines = len(_room(room).read_text().splitlines())
        assert lines < 500, f"{_room(room)} has {lines} lines"


def _machine_expr(node: ast.expr) -> bool:
    """``machine``, ``self.machine`` or ``m`` (a table machine, as the drivers name it)."""
    if isinstance(node, ast.Name):
        return node.id in ("machine", "m")
    return isinstance(node, ast.Attribute) and node.attr == "machine"


@pytest.mark.parametrize("room", DRIVERS)
def test_the_runner_and_the_session_never_write_into_the_machine(room: str) -> None:
    """No assignment to a machine's attribute and no reach into its record, chain or held
    messages: the runner drives it through methods (``TableMachine.listen`` and after)."""
    tree = ast.parse(_room(room).read_text())
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute):
                assert not _machine_expr(target.value), (
                    f"{_room(room)}:{target.lineno} writes machine.{target.attr}"
                )
        if isinstance(node, ast.Attribute) and node.attr in MACHINE_INSIDES:
            assert not _machine_expr(node.value), (
                f"{_room(room)}:{node.lineno} reaches into machine.{node.attr}"
            )


@pytest.mark.parametrize(
    "path",
    [
        "druids_p2p/lan/peer_config.py",
        "druids_p2p/cli/peer_run.py",
        "druids_p2p/cli/bot_player.py",
        "druids_p2p/tui/player.py",
    ],
)
def test_no_player_module_imports_the_table_machine(path: str) -> None:
    tree = ast.parse((ROOT / path).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not imported & {"druids_p2p.table.table", "druids_p2p.peer.runner"}, path


class _Recorder(Player):
    """Plays the first legal move and keeps what it was shown."""

    def __init__(self) -> None:
        self.seen: list[TableView] = []

    def attach(self, table: TableView) -> None:
        self.seen.append(table)

    def choose(self, table: TableView) -> int:
        self.seen.append(table)
        view = table.player_view()
        assert view is not None
        legal: list[int] = view.legal
        return legal[0]


def moves_sent(arena: Arena, k: int) -> int:
    """How many moves peer ``k`` has sent (a ``move``, ``table_play`` or ``table_show`` of its
    own; the owners' words and their check, which no player makes, are not counted)."""
    key = arena.ids[k].public_key
    count = 0
    for frm, raw in arena.sent:
        msg = decode(raw)
        if frm == k and msg.sender == key and msg.type in MOVE_TYPES:
            token = str(msg.body.get("move", ""))
            count += not (token.startswith("Word:") or token in WORDS_CHECKS)
    return count


def test_a_player_is_handed_a_read_only_view_that_says_what_its_machine_says(
    tmp_path: Path,
) -> None:
    arena = Arena(tmp_path, players=3, seed=7, cheater=None)  # type: ignore[arg-type]
    arena.run(stop=lambda: any(m.my_turn for m in arena.machines))
    k = next(k for k, m in enumerate(arena.machines) if m.my_turn)
    machine = arena.machines[k]
    runner = arena.runners[k]
    player = _Recorder()
    runner.player = player
    before = moves_sent(arena, k)
    runner._tick()
    assert moves_sent(arena, k) == before + 1  # its player's move, sent
    table = player.seen[-1]
    assert not isinstance(table, TableMachine)
    for name in dir(table):
        if not name.startswith("_") and not callable(getattr(table, name)):
            assert not isinstance(getattr(table, name), TableMachine), name
    with pytest.raises(AttributeError):
        table.seat = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        table.machine = machine  # type: ignore[attr-defined]
    assert table.seat == machine.my_seat and table.options == machine.options
    assert table.phase == machine.phase and table.player_view() == machine.view()
    players = machine.options.players
    assert table.names == tuple(machine.name_of_seat(s) for s in range(players))
    arena.run()
    assert all(m.finished for m in arena.machines)
    assert table.game_over and table.winners is not None and table.phase == "done"
    assert table.totals == tuple(game_of(machine).totals)


def test_the_table_refuses_a_persons_illegal_move_once_in_their_words_then_plays_a_legal_one(
    tmp_path: Path,
) -> None:
    """The terminal UI's move is checked once, by the table machine, through the real runner:
    an illegal one is not played, the person is told why in their words and asked again."""
    arena = Arena(tmp_path, players=3, seed=3, cheater=None)  # type: ignore[arg-type]
    arena.run(stop=lambda: any(m.my_turn for m in arena.machines))
    k = next(k for k, m in enumerate(arena.machines) if m.my_turn)
    machine, runner = arena.machines[k], arena.runners[k]
    posted: list[object] = []
    player = UIPlayer(posted.append, snapshot_from_table)
    runner.player = player
    player.attach(runner.table)
    runner._tick()  # asked: the person thinks, the table goes on
    ask = posted[-1]
    assert isinstance(ask, TurnRequest) and isinstance(ask.snapshot, TableSnapshot)
    assert ask.snapshot.my_turn and ask.snapshot.turn == 1
    view, rnd, seat = machine.view(), game_of(machine).round, machine.my_seat
    assert view is not None and rnd is not None and seat is not None
    illegal = next(
        move_for_card(c) for c in range(N_DOMAIN_CARDS) if move_for_card(c) not in view.legal
    )
    before = moves_sent(arena, k)
    player.submit(illegal, 1)
    runner._tick()
    rejected = posted[-1]
    assert isinstance(rejected, MoveRejected) and rejected.move == illegal
    assert rejected.reason == in_your_words(rnd.check(illegal), seat)
    assert machine.my_turn and moves_sent(arena, k) == before  # nothing was played or sent
    runner._tick()
    again = posted[-1]
    assert isinstance(again, TurnRequest) and again.snapshot.turn == 2
    player.submit(view.legal[0], 1)  # an answer to the earlier request: ignored
    runner._tick()
    assert moves_sent(arena, k) == before
    player.submit(view.legal[0], 2)
    runner._tick()
    assert moves_sent(arena, k) == before + 1
    arena.run()
    assert all(m.finished for m in arena.machines)
