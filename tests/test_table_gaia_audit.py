"""Who holds Gaia is the owners' word, and every false word is blamed on its seat.

Each round of Druids 2017 deals one ``lead`` card to each seat, Gaia among them; every seat then
says whether its ``lead`` card is Gaia (``Word:yes``/``Word:no``, signed ``move`` messages) and
checks the words (``Words:fit``/``Words:unfit``). Exactly one yes names the holder, whose first
move step is the lead: Gaia shown face up into ``gaia:D``. Words no deal fits (a holder who says
no: no yes; a non-holder who says yes: two) send the table to the round's final reveal, where the
false word is blamed with its signed word as evidence; a false check is blamed at the check (a
garbled one) or at the final reveal (a false call); a lead that is not Gaia's position at once.

Real table machines (honest ones inside real :class:`TableRunner` objects, ``attack_arena``'s
arena), on a fake clock where time matters. Before the words, the lead step named no sender,
so a silent Gaia holder hung the table forever.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from attack_arena import Arena, hand_cards, no_linger, position_of, send_show
from test_table_deadlines import MOVE_S, STEP_S, blamed_everywhere, clocked_arena, pass_time
from test_table_deadlines import say_hello as hellos

from druids_p2p.audit.audit import audit_messages
from druids_p2p.games.druids2017 import GAIA
from druids_p2p.games.druids2017.game import NO, YES
from druids_p2p.games.druids2017.table_seat import TableSeat2017
from druids_p2p.table.card_table_play import WORDS_CHECKS, WORDS_FIT, WORDS_UNFIT
from druids_p2p.wire import Message, MsgType, decode

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


def holder_index(arena: Arena) -> int:
    """The seat-list index of the peer whose hand holds Gaia (the test looks)."""
    return next(k for k, m in enumerate(arena.machines) if GAIA in hand_cards(m).values())


def words_of(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.type is MsgType.MOVE and m.body["move"] in (YES, NO)]


def record_verdict(arena: Arena, k: int) -> Any:
    report = audit_messages([m.raw for m in arena.machines[k].transcript.messages])
    assert report.verdict == "stopped" and report.stop is not None, report.problem
    return report.stop


# ==================================================================== the holder, by the words
def test_every_peer_knows_the_gaia_holder_before_the_lead(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=60, cheater=None)  # type: ignore[arg-type]
    arena.run_to_play()
    holder = arena.ids[holder_index(arena)].public_key
    for m in arena.machines:
        assert m.step is not None and m.step.senders == (holder,)
        words = words_of(list(m.transcript.messages))
        assert len(words) == 3 and [w.sender for w in words if w.body["move"] == YES] == [holder]
        checks = [x for x in m.transcript.messages if x.type is MsgType.MOVE][3:]
        assert [c.body["move"] for c in checks] == [WORDS_FIT] * 3
    arena.run()
    assert all(m.finished for m in arena.machines)
    for m in arena.machines:  # the lead of every round is Gaia, shown into gaia:D by its holder
        shows = [x for x in m.transcript.messages if x.type is MsgType.TABLE_SHOW]
        assert shows[0].body["card"] == GAIA and shows[0].body["zone"].startswith("gaia:")
    report = audit_messages([m.raw for m in arena.machines[0].transcript.messages])
    assert report.ok, report.problem


def test_a_silent_gaia_holder_is_blamed_after_the_move_limit(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=61)
    arena.run_to_play()
    holder = holder_index(arena)
    arena.cheater = holder  # it keeps saying hello and never leads
    pass_time(arena, STEP_S * 3, step=5.0, keepalive=hellos(arena, holder))
    assert not any(arena.stopped(k) for k in arena.honest), "a person may think"
    pass_time(arena, MOVE_S, step=5.0, keepalive=hellos(arena, holder))
    blamed_everywhere(arena, holder, "did not make its move within the move limit")
    for k in arena.honest:
        verdict = record_verdict(arena, k)
        assert verdict.seat == arena.seat(holder)
        assert "did not move within the move limit" in verdict.summary


def test_a_crashed_gaia_holder_is_recorded_as_unreachable(tmp_path: Path) -> None:
    arena = clocked_arena(tmp_path, seed=62)
    arena.run_to_play()
    holder = holder_index(arena)
    arena.cheater = holder  # gone: not a word more
    pass_time(arena, MOVE_S + 10, step=5.0)
    blamed_everywhere(arena, holder, "unreachable: gone for")


# ==================================================================== false words
def lying(arena: Arena, monkeypatch: pytest.MonkeyPatch, true_word: str) -> list[bytes]:
    """The first seat whose true word is ``true_word`` gives the opposite, signed by its
    machine (so its transcript agrees with everyone's); it turns cheat, its runner stepping
    aside. Returns a non-empty list once the lie is told."""
    original = TableSeat2017.own_word
    told: list[bytes] = []

    def own_word(self: TableSeat2017) -> str | None:
        word = original(self)
        if word is None or told or word != true_word:
            return word
        k = next(j for j, m in enumerate(arena.machines) if m.card_play.copy is self)
        arena.cheater = k
        told.append(b"")
        return NO if word == YES else YES

    monkeypatch.setattr(TableSeat2017, "own_word", own_word)
    return told


def _lie_blamed_at_the_final_reveal(arena: Arena, told: list[bytes]) -> None:
    liar = arena.cheater
    assert liar is not None and told, "nobody lied"
    (lie,) = [
        w for w in words_of(list(arena.machines[liar].transcript.messages))
        if w.sender == arena.ids[liar].public_key
    ]  # fmt: skip
    blamed_everywhere(arena, liar, "the final reveal shows every card")
    for k in arena.honest:
        fault = arena.faults[k]  # each honest peer found it itself
        assert fault.reason.startswith("audit:") and "of its lead card" in fault.reason
        assert fault.evidence == (lie.raw,) and decode(fault.evidence[0]).body["move"] in (YES, NO)
        checks = [x.body["move"] for x in arena.machines[k].transcript.messages
                  if x.type is MsgType.MOVE and x.body["move"] in WORDS_CHECKS]  # fmt: skip
        assert checks == [WORDS_UNFIT] * 3, "every seat found the words fit no deal"
        assert not any(x.type is MsgType.TABLE_SHOW for x in arena.machines[k].transcript.messages)
        verdict = record_verdict(arena, k)
        assert verdict.seat == arena.seat(liar) and "is false" in verdict.summary  # its word


def test_a_holder_that_says_no_is_blamed_at_the_final_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No yes at all: no deal fits, every seat says so, every card is revealed and the holder
    is convicted by its signed ``Word:no``."""
    arena = clocked_arena(tmp_path, seed=63, cheater=None)  # type: ignore[arg-type]
    told = lying(arena, monkeypatch, YES)
    arena.run()
    _lie_blamed_at_the_final_reveal(arena, told)


def test_a_non_holder_that_says_yes_is_blamed_at_the_final_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two yeses (the holder's and the liar's): no deal fits, and the liar's signed
    ``Word:yes`` convicts it once every card is known; the true holder is not blamed."""
    arena = clocked_arena(tmp_path, seed=64, cheater=None)  # type: ignore[arg-type]
    told = lying(arena, monkeypatch, NO)
    arena.run()
    _lie_blamed_at_the_final_reveal(arena, told)
    holder = holder_index(arena)
    assert holder != arena.cheater
    for k in arena.honest:
        yeses = [w.sender for w in words_of(list(arena.machines[k].transcript.messages))
                 if w.body["move"] == YES]  # fmt: skip
        liar = arena.ids[arena.cheater].public_key  # type: ignore[index]
        assert sorted(yeses) == sorted([arena.ids[holder].public_key, liar])


@pytest.mark.parametrize(
    ("check", "why"),
    [
        (WORDS_UNFIT, "called the owners' words contradicted, but every word is true"),
        (YES, "sent 'Word:yes' when the words' check was due"),
    ],
)
def test_a_false_or_garbled_words_check_is_blamed_on_its_sender(
    tmp_path: Path, check: str, why: str
) -> None:
    """The cheater's machine sends ``check`` as its check of true words (signed by it, so its
    own transcript agrees): a false call sends every seat to the final reveal, where every word
    is true and the call is blamed; a token that is no check is refused at once."""
    arena = clocked_arena(tmp_path, seed=65)
    arena.run(stop=lambda: arena.machines[1].card_play is not None)
    play = arena.machines[1].card_play
    sent: list[bytes] = []

    def false_check() -> list[bytes]:
        if play.copy.words_due():
            return []
        play.checking = True
        sent.append(play._seal_move(check).raw)
        return sent[-1:]

    play._check_words = false_check
    arena.run()
    assert sent
    blamed_everywhere(arena, 1, why)
    for k in arena.honest:
        if k in arena.faults:
            assert arena.faults[k].evidence == (sent[0],)


def test_a_holder_leading_another_card_as_gaia_is_blamed_at_once(tmp_path: Path) -> None:
    """The words put Gaia at the holder's ``lead`` position: a lead into ``gaia:D`` of another
    position of its hand, claimed as Gaia (valid proof, its own share), is refused by every
    seat's copy and blamed on the holder with its signed show, before any card is decrypted."""
    arena = clocked_arena(tmp_path, seed=66)
    arena.run_to_play()
    holder = holder_index(arena)
    arena.cheater = holder
    c = arena.machines[holder]
    other = next(p for p, card in hand_cards(c).items() if card != GAIA)
    assert position_of(c, GAIA) != other
    (show,) = send_show(c, other, GAIA, "gaia:R")
    arena.broadcast(holder, [show])
    arena.run()
    arena.assert_blamed(holder, "by the words, not")
    assert all(arena.faults[k].evidence == (show,) for k in arena.honest if k in arena.faults)
