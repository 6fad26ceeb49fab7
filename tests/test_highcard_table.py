"""High card at the mental card table: real table machines in one process (``table_harness``),
every message signed, shuffled, dealt and shown through the deck, as between peer processes.

Registered as a third party's game is (its entry point), the table plays it knowing nothing of
it: every seat agrees on the end, each record audits complete with the signed outcome, and a
seat that revokes (it shows an off-suit card while it holds the led suit, its own copy's check
relaxed) is taken in play and blamed by every honest seat at the final reveal, with its signed
``table_show`` as the evidence; the record of that table audits stopped on it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from table_harness import LocalTable

SUPPORT = str(Path(__file__).parent / "support")
DIST = str(Path(__file__).parent / "support" / "highcard_dist")
"""The game's package, and its distribution's metadata (the entry point): only the second
registers it."""
if SUPPORT not in sys.path:
    sys.path.append(SUPPORT)  # the game's package only: importing it registers nothing

from highcard.cards import suit  # noqa: E402
from highcard.engine import HighCard  # noqa: E402
from highcard.ruleset import NAME  # noqa: E402
from highcard.table_seat import HighCardSeat  # noqa: E402

from druids_p2p.audit.audit import audit_messages  # noqa: E402
from druids_p2p.games import registry  # noqa: E402
from druids_p2p.table.table import TableMachine  # noqa: E402
from druids_p2p.table.table_state import TableFault  # noqa: E402
from druids_p2p.wire import MsgType, decode  # noqa: E402

CHEATER = 0


@pytest.fixture
def registered() -> Iterator[None]:
    """High card registered in this process for the test: its entry point's folder on the path
    and the registry read again (and again after, without it)."""
    sys.path.insert(0, DIST)
    registry.reload()
    try:
        assert NAME in registry.games(), registry.registry().broken
        yield
    finally:
        sys.path.remove(DIST)
        registry.reload()


def copy_of(machine: TableMachine) -> HighCardSeat:
    play = machine.card_play
    assert play is not None and isinstance(play.copy, HighCardSeat)
    return play.copy


def raws(machine: TableMachine) -> list[bytes]:
    return [m.raw for m in machine.transcript.messages]


@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_a_whole_table_plays_high_card_agrees_and_audits_complete(players: int, seed: int) -> None:
    table = LocalTable(players=players, seed=seed, ruleset=NAME)
    table.run()
    assert len({m.transcript.head for m in table.machines}) == 1
    for m in table.machines:
        assert m.finished and m.aborted is None and m.rounds_audited == 1
    ends = {(tuple(copy_of(m).totals), tuple(copy_of(m).winners or ())) for m in table.machines}
    assert len(ends) == 1
    totals, winners = table.machines[0].outcome()
    assert sum(totals) == 3 and winners
    kinds = {m.type for m in table.machines[0].transcript.messages}
    assert {MsgType.TABLE_SHUFFLE, MsgType.TABLE_SHARES, MsgType.TABLE_SHOW} <= kinds
    assert {MsgType.TABLE_REVEAL, MsgType.RESULT} <= kinds
    assert MsgType.MOVE not in kinds and MsgType.TABLE_PLAY not in kinds  # every card shown
    shows = [m for m in table.machines[0].transcript.messages if m.type is MsgType.TABLE_SHOW]
    assert len(shows) == 3 * players
    report = audit_messages(raws(table.machines[0]))
    assert report.verdict == "complete", report.problem
    assert (report.totals, report.winners) == (totals, winners)


class RevokeTable(LocalTable):
    """A table whose machines stop on their first fault; the cheater (seat-list index 0) plays
    its first off-suit card while it holds the led suit, its own copy's check relaxed."""

    def __init__(self, seed: int) -> None:
        super().__init__(players=3, seed=seed, ruleset=NAME)
        self.faults: dict[int, TableFault] = {}
        self.revoked: bytes | None = None

    def deliver(self, j: int, raw: bytes, frm: int | None = None) -> None:
        if j not in self.faults:
            try:
                super().deliver(j, raw, frm)
                self.machines[j].check_deferred()
            except TableFault as fault:
                self.faults[j] = fault

    def stopped(self, k: int) -> bool:
        return k in self.faults

    def move(self, k: int) -> None:
        card = revoke(self.machines[k]) if k == CHEATER and self.revoked is None else None
        if card is None:
            super().move(k)
            return
        out = self.machines[k].play(card)
        self.revoked = next(r for r in out if decode(r).type is MsgType.TABLE_SHOW)
        self.broadcast(k, out)

    def seat(self, k: int) -> int:
        return self.machines[(k + 1) % 3].order.index(self.ids[k].public_key)


def revoke(machine: TableMachine) -> int | None:
    """An off-suit card of the machine's hand while it holds the led suit (its copy's engine
    then lets it: the check of a seat whose hand it does not know), else None."""
    copy, seat = copy_of(machine), machine.my_seat
    game = copy.game
    hand = game.hands[seat] if seat is not None else None
    if hand is None or game.led < 0:
        return None
    off = [c for c in hand if suit(c) != game.led]
    if not off or len(off) == len(hand):
        return None
    lax = HighCard(game.options, [None] * game.players)  # whose check knows no hand

    def check(move: int) -> str | None:
        return lax.check(move) if move in hand else game.__class__.check(game, move)

    game.check = check  # type: ignore[method-assign]
    return off[0]


@pytest.mark.usefixtures("registered")
def test_a_revoke_is_taken_in_play_and_blamed_at_the_final_reveal_with_its_show() -> None:
    for seed in range(40):  # tables until the cheater can revoke (bounded)
        table = RevokeTable(seed)
        table.run()
        if table.revoked is not None:
            break
    else:
        pytest.fail("in 40 tables the cheater never could revoke")
    honest = [k for k in range(3) if k != CHEATER]
    cheater = table.seat(CHEATER)
    for k in honest:
        fault = table.faults[k]  # every honest seat found it itself, at the final reveal
        assert fault.seat == cheater and fault.evidence == (table.revoked,), fault
        assert fault.reason.startswith("audit:") and "while holding" in fault.reason
        assert "final reveal" in fault.reason and copy_of(table.machines[k]).game_over
        machine = table.machines[k]  # its record, ended as its runner ends it: audits stopped
        body: dict[str, object] = {"reason": fault.reason[:200], "seat": cheater}
        body["key"] = machine.order[cheater]
        for own in machine.own_pending():
            machine.record_control(own)
        machine.record_control(machine.seal_control(MsgType.ABORT, body))
        report = audit_messages(raws(machine))
        assert report.verdict == "stopped" and report.stop is not None, report.problem
        assert report.stop.seat == cheater and report.stop.checked, report.stop
        assert "while holding" in report.stop.summary
