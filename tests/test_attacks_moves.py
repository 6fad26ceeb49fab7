"""Moves and rules cheats: moves out of turn, a lead without Gaia, a result other than the game's,
a non-canonical move token, a renege caught by the end-of-round audit.

The arena (honest :class:`TableRunner` peers around real table machines, a bare cheating
machine) is ``attack_arena``; see its docstring for what is and is not real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attack_arena import (
    Arena,
    domain_cards,
    no_linger,
    not_leading,
    open_into_move,
    renege,
    rewrite,
    send_move,
)
from table_harness import game_of

from druids_p2p.games.druids2017 import GAIA, format_move
from druids_p2p.wire import MsgType

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


def test_move_out_of_turn_during_play(tmp_path: Path) -> None:
    """While another seat is to move, the cheater moves too: its move is built on the head of a
    step that is not its own, which is signed proof of a move out of turn."""
    arena = Arena(tmp_path, players=3, seed=31, cheater=1)
    done: list[bytes] = []

    def before_move(k: int) -> None:
        c = arena.machines[1]
        if done or k == 1 or not not_leading(c) or c.own_pending_in_step():
            return
        card = domain_cards(c)[0]
        raw = c.chain.seal(
            MsgType.MOVE, {"round": c.game.round_index, "move": format_move(card)}, c.step_head
        )
        done.append(raw)
        arena.broadcast(1, [raw])

    arena.before_move = before_move
    arena.run()
    assert done
    arena.assert_blamed(1, "sent move out of turn")


def test_lead_by_a_seat_without_gaia(tmp_path: Path) -> None:
    """The Gaia holder shows Gaia at ready, so the lead step names it: a first card opened by
    any other seat is a move out of turn, blamed by everyone with the signed move."""
    arena = Arena(tmp_path, players=3, seed=32, cheater=1)
    arena.run(
        stop=lambda: all(m.step is not None and m.step.name == "lead" for m in arena.machines)
    )
    holder = next(k for k, m in enumerate(arena.machines) if GAIA in m.deck.hand())  # type: ignore[union-attr]
    assert all(m.gaia_holder == arena.ids[holder].public_key for m in arena.machines)
    cheater = next(k for k in range(3) if k != holder)
    arena.cheater = cheater
    c = arena.machines[cheater]
    assert c.deck is not None
    card = domain_cards(c)[0]
    (move_raw,) = open_into_move(c, format_move(card), card)
    bystander = next(k for k in range(3) if k not in (holder, cheater))
    arena.deliver(bystander, move_raw)  # the bystander hears it before the Gaia holder's lead
    arena.broadcast(cheater, [move_raw])
    arena.run()
    assert "out of turn" in arena.faults[bystander].reason
    arena.assert_blamed(cheater, "out of turn")


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
    """`Gaia:R:dark` names the same lead as `Gaia:R` in the JSON notation, but a signed move has
    one spelling (protocol.md appendix A): a second spelling is refused and blamed on its signer."""
    arena = Arena(tmp_path, players=3, seed=32, cheater=1)
    arena.run(
        stop=lambda: all(m.step is not None and m.step.name == "lead" for m in arena.machines)
    )
    holder = next(k for k, m in enumerate(arena.machines) if GAIA in m.deck.hand())  # type: ignore[union-attr]
    arena.cheater = holder
    arena.broadcast(holder, send_move(arena.machines[holder], "Gaia:R:dark"))
    arena.run()
    arena.assert_blamed(holder, "'Gaia:R:dark' is not a canonical move token")


def test_renege_is_caught_at_the_end_of_round_audit(tmp_path: Path) -> None:
    """Nobody can see a renege live (hands are hidden); the audit replays the round with every
    hand known and blames the seat that did not follow."""
    arena = Arena(tmp_path, players=3, seed=33, cheater=1)

    arena.cheat_once(renege)
    for k in arena.honest:  # the round was played out: the cheat went unnoticed until the end
        rnd = game_of(arena.machines[k]).round
        assert rnd is not None and rnd.over
    arena.assert_blamed(1, "does not follow")
    assert any("audit" in arena.faults[k].reason for k in arena.honest if k in arena.faults)
