"""A table that stopped on a cheat leaves a record that audits "valid, stopped: seat S …
(evidence checked)": the audit finds in the record the very fault its recorder stopped on, also
in a round cut short before its final reveal. The same fault in a record cut before its stop is
invalid, at the cheat's own signed message, blaming its signer.

Real table machines in one process (``table_harness.LocalTable``), the cheater at seat-list index
0, each honest machine's record ended as its runner ends it (``peer/runner.py``: its own messages
of the step it stopped in, then its abort naming the seat blamed). The cheats: a forged shuffle
pass (its outputs swapped, so its proof fails), a revoke (the cheater's own rules check lets it
play off the led domain while it holds a card of it: judged at the round's final reveal), and a
false owners' word about Gaia (a claim to hold it, or a denial).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from message_surgery import resign, thaw
from table_harness import LocalTable

from druids_p2p.audit.audit import audit_messages
from druids_p2p.games.druids2017.cards import N_DOMAIN_CARDS, card_domain
from druids_p2p.games.druids2017.game import NO, YES
from druids_p2p.games.druids2017.rules import Round
from druids_p2p.games.druids2017.table_seat import TableSeat2017
from druids_p2p.games.seam import CardTableSeat
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import Message, MsgType, decode

CHEATER = 0
"""The cheating seat's index in the seat list."""


class LaxRound(Round):
    """The cheater's own rules check, which lets it revoke (not follow while it could)."""

    __slots__ = ()

    def check(self, move: int) -> str | None:
        reason = super().check(move)
        return None if reason is not None and "does not follow" in reason else reason


class StopTable(LocalTable):
    """A table whose machines stop on their first fault (and take nothing after it), the
    cheater's moves chosen by ``cheat`` (None: a random legal move, as every other seat)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(players=3, rounds=1, **kwargs)
        self.faults: dict[int, TableFault] = {}
        self.cheat: Callable[[TableMachine], int | None] | None = None

    def deliver(self, j: int, raw: bytes, frm: int | None = None) -> None:
        if j not in self.faults:
            try:
                super().deliver(j, raw, frm)
                self.machines[j].check_deferred()  # as the runner does once its messages are out
            except TableFault as fault:
                self.faults[j] = fault

    def stopped(self, k: int) -> bool:
        return k in self.faults

    def move(self, k: int) -> None:
        machine = self.machines[k]
        move = None if k != CHEATER or self.cheat is None else self.cheat(machine)
        try:
            if move is None:
                super().move(k)
            else:
                self.broadcast(k, machine.play(move))
        except TableFault as fault:
            self.faults[k] = fault

    def seat(self, k: int) -> int:
        return self.machines[(k + 1) % 3].order.index(self.ids[k].public_key)

    def honest_stopped(self) -> list[int]:
        """The honest machines that stopped (each blaming the cheater, checked)."""
        cheater = self.seat(CHEATER)
        honest = [k for k in self.faults if k != CHEATER]
        assert honest, f"no honest machine stopped: {self.faults}"
        for k in honest:
            assert self.faults[k].seat == cheater, (k, self.faults[k])
        return honest

    def stopped_record(self, k: int) -> list[bytes]:
        """Machine ``k``'s record ended as its runner ends it (``TableEnding._abort``)."""
        machine, fault = self.machines[k], self.faults[k]
        body: dict[str, object] = {"reason": fault.reason[:200]}
        if fault.seat is not None:
            body["seat"] = fault.seat
            body["key"] = machine.order[fault.seat]
        for own in machine.own_pending():
            machine.record_control(own)
        machine.record_control(machine.seal_control(MsgType.ABORT, body))
        return [m.raw for m in machine.transcript.messages]


def _stopped_with_evidence(table: StopTable, words: str, kind: MsgType) -> list[Message]:
    """Every honest machine's record audits stopped on the cheater, the evidence checked, at
    the cheater's message of ``kind``; the messages of one of them."""
    seat = table.seat(CHEATER)
    msgs: list[Message] = []
    for k in table.honest_stopped():
        raws = table.stopped_record(k)
        report = audit_messages(raws)
        assert report.verdict == "stopped" and report.stop is not None, report.problem
        assert report.stop.seat == seat and report.stop.checked, report.stop
        assert words in report.stop.summary, report.stop.summary
        assert str(report.stop).endswith("(evidence checked)")
        msgs = [decode(raw) for raw in raws]
        at = msgs[report.stop.message_index]
        assert at.type is kind and at.sender == table.ids[CHEATER].public_key, at
    return msgs


def _invalid_without_its_stop(table: StopTable, msgs: list[Message], at: int, words: str) -> None:
    """Cut before the abort (a record that shows the cheat and goes on as far as it has):
    invalid, at the cheat's message, blaming its signer."""
    end = next(i for i, m in enumerate(msgs) if m.type is MsgType.ABORT)
    report = audit_messages([m.raw for m in msgs[:end]])
    assert report.verdict == "invalid" and report.problem is not None, report.to_json()
    assert (report.problem.message_index, report.problem.seat) == (at, table.seat(CHEATER))
    assert words in report.problem.error, report.problem.error


# ------------------------------------------------------------------------- a forged shuffle
def _forged_shuffle_table() -> StopTable:
    table = StopTable(seed=5)
    forged: dict[bytes, bytes] = {}

    def swap_outputs(frm: int, to: int, raw: bytes) -> bytes:
        if frm != CHEATER:
            return raw
        if not forged:
            msg = decode(raw)
            if msg.type is not MsgType.TABLE_SHUFFLE:
                return raw
            body = thaw(msg.body)
            for half in ("a", "c"):
                body[half][0], body[half][1] = body[half][1], body[half][0]
            forged[raw] = resign(table.ids[CHEATER], raw, body=body)
        return forged.get(raw, raw)

    table.tamper = swap_outputs
    table.run()
    assert forged, "the cheater never shuffled"
    return table


def test_a_bad_shuffle_proof_stop_audits_stopped_with_the_evidence_checked() -> None:
    table = _forged_shuffle_table()
    honest = [f for k, f in table.faults.items() if k != CHEATER]
    assert len(honest) == 2 and all("invalid proof of a shuffle" in f.reason for f in honest)
    msgs = _stopped_with_evidence(table, "invalid proof of a shuffle", MsgType.TABLE_SHUFFLE)
    at = next(
        i
        for i, m in enumerate(msgs)
        if m.type is MsgType.TABLE_SHUFFLE and m.sender == table.ids[CHEATER].public_key
    )
    _invalid_without_its_stop(table, msgs[: at + 1] + msgs[-1:], at, "invalid proof of a shuffle")


# -------------------------------------------------------------------------------- a revoke
def revoke(machine: TableMachine) -> int | None:
    """A domain card off the led domain while the cheater holds one of it, once it can."""
    play = machine.card_play
    assert play is not None and isinstance(play.copy, TableSeat2017)
    rnd, seat = play.copy.game.round, machine.my_seat
    if rnd is None or seat is None or rnd.lead_domain < 0 or rnd.pending_sickles:
        return None
    hand = rnd.hand(seat)
    off = [c for c in hand if c < N_DOMAIN_CARDS and card_domain(c) != rnd.lead_domain]
    if not off or not any(card_domain(c) == rnd.lead_domain for c in hand):
        return None
    rnd.__class__ = LaxRound  # its own copy of the rules lets it
    return off[0]


def test_a_revoke_stop_audits_stopped_at_the_show_with_the_evidence_checked() -> None:
    """The revoke is found at the round's final reveal, every secret in: the record holds the
    whole round, then the stop; the audit replays it with every hand known, judges the round's
    breaches as the table did and names the same show. Without its stop the record is invalid,
    naming the revoker at the revoking show."""
    table = StopTable(seed=33)
    revoked: list[int] = []

    def cheat(machine: TableMachine) -> int | None:
        card = None if revoked else revoke(machine)
        if card is not None:
            revoked.append(card)
        return card

    table.cheat = cheat
    table.run()
    assert revoked, "the cheater never could revoke"
    assert all("broke a rule in round 1" in f.reason for f in table.faults.values())
    assert all("while holding" in f.reason for f in table.faults.values())
    msgs = _stopped_with_evidence(table, "while holding", MsgType.TABLE_SHOW)
    cheater = table.ids[CHEATER].public_key
    at = next(
        i
        for i, m in enumerate(msgs)
        if m.type is MsgType.TABLE_SHOW and m.sender == cheater and m.body["card"] == revoked[0]
    )
    assert all(f.evidence == (msgs[at].raw,) for f in table.faults.values())
    _invalid_without_its_stop(table, msgs, at, "while holding")


# ------------------------------------------------------------------- a false owners' word
def _lying_table(said: str) -> StopTable:
    """A table whose cheater's first word about Gaia is false and is ``said`` (a claim to
    hold Gaia, or a denial): tables of fixed keys are tried until its true word is the other
    (bounded: Gaia lies at the cheater's seat one time in three)."""
    for keys_seed in range(40):
        table = StopTable(seed=keys_seed, keys_seed=keys_seed)

        def asked(t: StopTable = table) -> bool:
            return _own_word(t) is not None

        table.run(stop=asked)
        if _own_word(table) not in (None, said):
            play = table.machines[CHEATER].card_play
            assert play is not None
            copy = play.copy

            def lie(copy: CardTableSeat = copy) -> str | None:
                return said if copy.seat in copy.words_due() else None

            copy.own_word = lie
            table.run()
            return table
    raise AssertionError(f"the cheater's true word was never the opposite of {said}")


def _own_word(table: StopTable) -> str | None:
    play = table.machines[CHEATER].card_play
    return None if play is None else play.copy.own_word()


@pytest.mark.parametrize("said", [YES, NO])
def test_a_false_gaia_word_stop_audits_stopped_at_the_word(said: str) -> None:
    """The words do not fit (no holder, or two): every seat calls them contradicted, the round
    goes to its final reveal, where the false word is blamed on its signer. The audit, every
    card known, finds the word false at its message; without the stop, invalid there."""
    table = _lying_table(said)
    assert all("said " + said in f.reason for f in table.faults.values()), table.faults
    msgs = _stopped_with_evidence(table, "is false", MsgType.MOVE)
    cheater = table.ids[CHEATER].public_key
    at = next(
        i
        for i, m in enumerate(msgs)
        if m.type is MsgType.MOVE and m.sender == cheater and m.body["move"] == said
    )
    assert all(f.evidence == (msgs[at].raw,) for f in table.faults.values())
    _invalid_without_its_stop(table, msgs, at, f"word {said} is false")
