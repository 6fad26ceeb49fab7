"""Moves and rules cheats: moves out of turn, a lead without Gaia, Gaia led into a trick, a
result other than the game's, a non-canonical move token, a revoke caught at the round's final
reveal.

The arena (honest :class:`TableRunner` peers around real table machines, a bare cheating
machine) is ``attack_arena``; see its docstring for what is and is not real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attack_arena import (
    Arena,
    domain_cards,
    hand_cards,
    no_linger,
    not_leading,
    position_of,
    renege,
    rewrite,
    send_move,
    send_show,
    show_body,
)
from table_harness import game_of

from druids_p2p.games.druids2017 import GAIA
from druids_p2p.games.druids2017.game import TRICK
from druids_p2p.wire import MsgType, decode

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


def _holder(arena: Arena) -> int:
    """The seat-list index of the peer whose hand holds Gaia (the test looks)."""
    return next(
        k for k in range(len(arena.machines)) if GAIA in hand_cards(arena.machines[k]).values()
    )


def test_move_out_of_turn_during_play(tmp_path: Path) -> None:
    """While another seat is to move, the cheater shows a card too: its message is built on the
    head of a step that is not its own, which is signed proof of a move out of turn."""
    arena = Arena(tmp_path, players=3, seed=31, cheater=1)
    done: list[bytes] = []

    def before_move(k: int) -> None:
        c = arena.machines[1]
        if done or k == 1 or not not_leading(c) or c.own_pending_in_step():
            return
        card = domain_cards(c)[0]
        raw = c.chain.seal(
            MsgType.TABLE_SHOW, show_body(c, position_of(c, card), card), c.step_head
        )
        done.append(raw)
        arena.broadcast(1, [raw])

    arena.before_move = before_move
    arena.run()
    assert done
    arena.assert_blamed(1, "sent table_show out of turn")


def test_lead_by_a_seat_without_gaia(tmp_path: Path) -> None:
    """The owners' words name the Gaia holder, so the first move step is its alone: a card
    shown first by any other seat is a move out of turn, blamed by everyone with the signed
    show."""
    arena = Arena(tmp_path, players=3, seed=32, cheater=1)
    arena.run_to_play()
    holder = _holder(arena)
    key = arena.ids[holder].public_key
    assert all(m.step is not None and m.step.senders == (key,) for m in arena.machines)
    cheater = next(k for k in range(3) if k != holder)
    arena.cheater = cheater
    c = arena.machines[cheater]
    card = domain_cards(c)[0]
    (show,) = send_show(c, position_of(c, card), card)
    bystander = next(k for k in range(3) if k not in (holder, cheater))
    arena.deliver(bystander, show)  # the bystander hears it before the Gaia holder's lead
    arena.broadcast(cheater, [show])
    arena.run()
    assert "out of turn" in arena.faults[bystander].reason
    arena.assert_blamed(cheater, "out of turn")
    assert all(arena.faults[k].evidence == (show,) for k in arena.honest if k in arena.faults)


def test_gaia_led_into_a_trick_is_blamed(tmp_path: Path) -> None:
    """Gaia is led face up into ``gaia:D``, naming the domain it leads: the holder's show of
    Gaia into ``trick`` (valid proof, the true card) names none, and every seat's copy of the
    rules refuses it and blames the holder with its signed show."""
    arena = Arena(tmp_path, players=3, seed=32, cheater=1)
    arena.run_to_play()
    holder = _holder(arena)
    arena.cheater = holder
    c = arena.machines[holder]
    (show,) = send_show(c, position_of(c, GAIA), GAIA, TRICK)
    arena.broadcast(holder, [show])
    arena.run()
    arena.assert_blamed(holder, "Gaia is led into gaia:D naming its domain")
    assert all(arena.faults[k].evidence == (show,) for k in arena.honest if k in arena.faults)


def test_a_seat_signing_another_result_than_the_game_gives_is_blamed(tmp_path: Path) -> None:
    """The result step (protocol.md §7): a seat whose signed totals differ from what the record
    gives is blamed by every peer, with its signed result as evidence."""

    def mutate(body: dict[str, Any]) -> None:
        body["totals"][0] += 1

    arena = Arena(tmp_path, players=3, seed=33, cheater=2)
    arena.tamper = rewrite(arena, 2, MsgType.RESULT, mutate)
    arena.run()
    arena.assert_blamed(2, "signed the result totals")


def test_a_move_spelled_other_than_its_canonical_token_is_blamed(tmp_path: Path) -> None:
    """`Pile:B:x` is no spelling of a pile choice, and `Gaia:R:dark` names the lead that the
    JSON notation spells `Gaia:R`: a signed move has one spelling (protocol.md appendix A), and
    a card leaves a hand only shown; the move is refused and blamed on its signer."""
    arena = Arena(tmp_path, players=3, seed=32, cheater=1)
    arena.run_to_play()
    holder = _holder(arena)
    arena.cheater = holder
    sent = send_move(arena.machines[holder], "Gaia:R:dark")
    arena.broadcast(holder, sent)
    arena.run()
    arena.assert_blamed(holder, "'Gaia:R:dark' is not a canonical move token")
    assert all(arena.faults[k].evidence == tuple(sent) for k in arena.honest if k in arena.faults)


def test_a_revoke_is_taken_in_play_and_blamed_at_the_rounds_final_reveal(tmp_path: Path) -> None:
    """Nobody can see a revoke live (hands are hidden): the off-domain card is taken, the round
    is played out, and at its final reveal, every card known, every honest peer blames the
    seat that did not follow, with its signed ``table_show`` as the evidence; no honest seat is
    blamed."""
    arena = Arena(tmp_path, players=3, seed=33, cheater=1)
    shown: list[bytes] = []

    def attempt(m: Any, move: int) -> list[bytes] | None:
        out = renege(m, move)
        if out is not None:
            shown.extend(raw for raw in out if decode(raw).type is MsgType.TABLE_SHOW)
        return out

    arena.cheat_once(attempt)
    (show,) = shown
    for k in arena.honest:  # the round was played out: the cheat went unnoticed until the end
        rnd = game_of(arena.machines[k]).round
        assert rnd is not None and rnd.over
        assert any(m.raw == show for m in arena.machines[k].transcript.messages)
    arena.assert_blamed(1, "while holding")
    for k in arena.honest:
        fault = arena.faults[k]  # every honest peer found it itself, at the final reveal
        assert fault.reason.startswith("audit:") and "final reveal" in fault.reason
        assert fault.seat == arena.seat(1) and fault.evidence == (show,)
