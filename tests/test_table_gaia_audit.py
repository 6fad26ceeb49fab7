"""The Gaia holder is named at the deal, and a deal that needs an audit gets one that names a seat.

Real table machines (honest ones inside real :class:`TableRunner` objects, ``attack_arena``'s
arena) on a fake clock. Before this, the lead step named no sender, so a silent Gaia holder hung
the table forever, and a hand that did not decrypt stopped the table blaming nobody.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import druids_p2p.net.table_round as table_round
import pytest
from attack_arena import Arena, no_linger, random_point
from druids_p2p.deck.messages import ShuffleMsg
from druids_p2p.deck.peer import DeckPeer
from druids_p2p.deck.shuffle_chain import ShuffleChain
from message_surgery import resign
from test_table_deadlines import MOVE_S, STEP_S, blamed_everywhere, clocked_arena, pass_time
from test_table_deadlines import say_hello as hellos

from druids_p2p.deck import AuditRequired, shuffle_chain
from druids_p2p.games.druids2017 import GAIA
from druids_p2p.net.audit import audit_messages
from druids_p2p.net.table_state import TableState
from druids_p2p.wire import MsgType, decode

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


def at_lead(arena: Arena) -> bool:
    return all(m.step is not None and m.step.name == "lead" for m in arena.machines)


def holder_index(arena: Arena) -> int:
    return next(k for k, m in enumerate(arena.machines) if GAIA in m.deck.hand())  # type: ignore[union-attr]


def record_verdict(arena: Arena, k: int) -> Any:
    report = audit_messages([m.raw for m in arena.machines[k].transcript.messages])
    assert report.verdict == "stopped" and report.stop is not None, report.problem
    return report.stop


# ==================================================================== (d) the Gaia holder
def test_every_peer_knows_the_gaia_holder_before_the_lead(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=60, cheater=None)  # type: ignore[arg-type]
    arena.run(stop=lambda: at_lead(arena))
    assert at_lead(arena)
    holder = arena.ids[holder_index(arena)].public_key
    for m in arena.machines:
        assert m.gaia_holder == holder and m.step is not None and m.step.senders == (holder,)
        shown = [x for x in m.ready if "open" in x.body]
        assert [x.sender for x in shown] == [holder] and shown[0].body["open"]["card"] == GAIA
    arena.run()
    assert all(m.finished for m in arena.machines)
    report = audit_messages([m.raw for m in arena.machines[0].transcript.messages])
    assert report.ok, report.problem


def test_a_silent_gaia_holder_is_blamed_after_the_move_limit(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=61)
    arena.run(stop=lambda: at_lead(arena))
    holder = holder_index(arena)
    arena.cheater = holder  # it keeps saying hello and never leads
    pass_time(arena, STEP_S * 3, step=5.0, keepalive=hellos(arena, holder))
    assert not any(arena.stopped(k) for k in arena.honest), "a person may think"
    pass_time(arena, MOVE_S, step=5.0, keepalive=hellos(arena, holder))
    blamed_everywhere(arena, holder, "did not make its move within the move limit")
    for k in arena.honest:
        verdict = record_verdict(arena, k)
        assert verdict.seat == arena.seat(holder) and "owing move" in verdict.summary


def test_a_crashed_gaia_holder_is_recorded_as_unreachable(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=62)
    arena.run(stop=lambda: at_lead(arena))
    holder = holder_index(arena)
    arena.cheater = holder  # gone: not a word more
    pass_time(arena, MOVE_S + 10, step=5.0)
    blamed_everywhere(arena, holder, "unreachable: gone for")


def test_a_holder_that_hides_gaia_at_ready_is_convicted_by_the_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its ready shows nothing, so nobody leads: every seat reveals and the audit finds Gaia
    among its cards; its signed ready is the evidence."""
    arena = clocked_arena(tmp_path, seed=63)
    original = table_round._begin_play

    def hiding(self: TableState) -> None:
        original(self)
        mine = self.pending[self.me]
        seq = max(mine) if mine else -1
        msg = mine.get(seq)
        if msg is None or msg.type is not MsgType.READY or "open" not in msg.body:
            return
        k = arena.index_of(self.me)
        arena.cheater = k  # the holder turns cheat: its runner steps aside
        raw = resign(arena.ids[k], msg.raw, body={"round": msg.body["round"]})
        mine[seq] = decode(raw)
        self._outbox = [raw if out == msg.raw else out for out in self._outbox]
        self.chain.last_signed = mine[seq]  # its newest signed message is the re-signed one

    monkeypatch.setattr(table_round, "_begin_play", hiding)
    arena.run()
    holder = arena.cheater
    assert holder is not None
    blamed_everywhere(arena, holder, "held Gaia but its ready did not show it")
    for k in arena.honest:
        fault = arena.faults[k]
        assert decode(fault.evidence[0]).type is MsgType.READY
        verdict = record_verdict(arena, k)
        assert verdict.seat == arena.seat(holder) and "held Gaia" in verdict.summary


# ==================================================================== (c) AuditRequired
def test_a_tampered_deck_found_in_a_hand_is_audited_and_its_shuffler_blamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat-list index 1 plants, in its shuffle, ciphertexts that decrypt to no card. Proofs
    of a shuffle refuse that on arrival; here they are taken as fooled (the 2^-128 case, or a
    flaw), which is what the audit is for: the owner's hand does not decrypt (AuditRequired), it
    calls an audit at ready, every seat reveals, and the audit convicts the shuffler from its
    revealed seed."""
    arena = Arena(tmp_path, players=3, seed=64, cheater=1)
    original = ShuffleChain.shuffle

    def planting(self: ShuffleChain, deck: Any, joint_key: bytes) -> ShuffleMsg:
        msg = original(self, deck, joint_key)
        cheater = arena.machines[1].deck
        if cheater is None or self is not cheater._chain:
            return msg
        # Half the deck replaced: some dealt position decrypts to no card whatever the later
        # shufflers and the salts do with it.
        a, c = list(msg.a), list(msg.c)
        for j in range(0, len(a), 2):
            a[j], c[j] = random_point(), random_point()
        return dataclasses.replace(msg, a=tuple(a), c=tuple(c))

    monkeypatch.setattr(ShuffleChain, "shuffle", planting)
    monkeypatch.setattr(shuffle_chain, "check_shuffles", lambda *args, **kwargs: None)
    arena.run()
    culprit = arena.seat(1)
    for k in arena.honest:
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat == culprit, aborted
        assert aborted.reason.startswith("audit:") and "shuffle" in aborted.reason
        assert aborted.evidence and decode(aborted.evidence[0]).sender == arena.ids[1].public_key
        assert arena.machines[k].round_moves == []  # stopped at the deal, not played on
        verdict = record_verdict(arena, k)
        assert verdict.seat == culprit and "shuffle" in verdict.summary


def test_an_audit_call_over_a_sound_deal_blames_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's handling of the deck's AuditRequired, whatever raised it: the seat whose
    hand the deck says does not decrypt reveals instead of its ready, everyone follows, and an
    audit that finds the deal sound blames the caller with its premature reveal."""
    arena = Arena(tmp_path, players=3, seed=65, cheater=1)
    original = DeckPeer.hand
    victim: list[DeckPeer] = []

    def broken(self: DeckPeer) -> tuple[int, ...]:
        if self is arena.machines[2].deck:
            victim.append(self)
            raise AuditRequired("position 0 of seat ? decrypts to no card", ())
        return original(self)

    monkeypatch.setattr(DeckPeer, "hand", broken)
    arena.run()
    assert victim
    caller = arena.seat(2)
    for k in (0, 1):
        aborted = arena.machines[k].aborted
        assert aborted is not None and aborted.seat == caller, aborted
        assert "called an audit, but the deal is sound" in aborted.reason
        assert decode(aborted.evidence[0]).type is MsgType.DECK_REVEAL
    for k in arena.honest:
        verdict = record_verdict(arena, k)
        assert verdict.seat == caller and "called an audit" in verdict.summary
