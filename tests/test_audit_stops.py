"""A table that stopped on a cheat leaves a record that audits "valid, stopped: seat S …
(evidence checked)": the audit finds in the record the very fault its recorder stopped on, also
in a round cut short before its reveal (``net/audit_public.py``). The same fault in a record that
goes on as if nothing happened is invalid.

Real table machines (``attack_arena.Arena``): the cheater forges its shuffle (fresh
encryptions of cards of its choosing, re-signed), as in ``test_table_shuffle_attacks``.
"""

from __future__ import annotations

from pathlib import Path

from attack_arena import (
    Arena,
    Cheat,
    no_linger,
    plant_encryptions,
    renege,
    rewrite,
)

from druids_p2p.net.audit import audit_messages
from druids_p2p.wire import MsgType

__all__ = ["no_linger"]


def _forged_shuffle_table(tmp_path: Path) -> Arena:
    arena = Arena(tmp_path, players=3, seed=5, cheater=1)
    cheater = arena.machines[1]

    arena.tamper = rewrite(arena, 1, MsgType.DECK_SHUFFLE, plant_encryptions(cheater))
    arena.run()
    arena.assert_blamed(1, "invalid proof of a shuffle")
    return arena


def test_a_bad_shuffle_proof_stop_audits_stopped_with_the_evidence_checked(tmp_path: Path) -> None:
    arena = _forged_shuffle_table(tmp_path)
    seat = arena.seat(1)
    for k in arena.honest:
        msgs = arena.machines[k].transcript.messages
        report = audit_messages([m.raw for m in msgs])
        assert report.verdict == "stopped" and report.stop is not None, report.problem
        assert report.stop.seat == seat and report.stop.checked, report.stop
        assert "invalid proof of a shuffle" in report.stop.summary
        shuffle = msgs[report.stop.message_index]
        assert shuffle.type is MsgType.DECK_SHUFFLE and shuffle.sender == arena.ids[1].public_key
        assert str(report.stop).endswith("(evidence checked)")


def test_the_same_bad_shuffle_without_its_stop_is_invalid(tmp_path: Path) -> None:
    """Cut before the abort, the record shows a fault nobody stopped on: invalid, at the
    shuffle, blaming its signer."""
    arena = _forged_shuffle_table(tmp_path)
    msgs = arena.machines[arena.honest[0]].transcript.messages
    at = next(
        i
        for i, m in enumerate(msgs)
        if m.type is MsgType.DECK_SHUFFLE and m.sender == arena.ids[1].public_key
    )
    report = audit_messages([m.raw for m in msgs[: at + 1]])
    assert report.verdict == "invalid" and report.problem is not None
    assert report.problem.message_index == at and report.problem.seat == arena.seat(1)


def test_a_renege_stop_audits_stopped_at_the_move_with_the_evidence_checked(
    tmp_path: Path,
) -> None:
    """The renege is found at the end-of-round audit, all reveals in: the record holds the whole
    round, then the stop; the audit replays it with every hand known and names the same move."""
    arena = Arena(tmp_path, players=3, seed=33, cheater=1)

    cheat = Cheat(renege)
    arena.cheat_play = cheat
    arena.run()
    arena.assert_blamed(1, "does not follow")
    for k in arena.honest:
        msgs = arena.machines[k].transcript.messages
        report = audit_messages([m.raw for m in msgs])
        assert report.verdict == "stopped" and report.stop is not None, report.problem
        assert report.stop.checked and report.stop.seat == arena.seat(1), report.stop
        assert "does not follow" in report.stop.summary
        move = msgs[report.stop.message_index]
        assert move.type is MsgType.MOVE and move.sender == arena.ids[1].public_key
