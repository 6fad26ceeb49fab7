"""What each kind of move costs the table in messages (counted in the record, never timed), and
which latency class the bench files it under (``table/codec.py``): a Druids (2004) draw, and a
Druids (2017) round at its own card table, its deal and its card plays."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from table_harness import LocalTable

from druids_p2p.deck import group
from druids_p2p.games.druids2017.cards import HAND_SIZE
from druids_p2p.table.codec import MOVE_KINDS, move_kind
from druids_p2p.wire import Message, MsgType

_MOVES = (MsgType.MOVE, MsgType.TABLE_PLAY)


def _after_each_draw(record: Sequence[Message]) -> list[tuple[Message, Sequence[Message]]]:
    """Each ``Draw:`` move and the messages up to the next move (draws the game's end
    follows, with its final reveal, are left out: they are the end's cost)."""
    out = []
    for i, msg in enumerate(record):
        if msg.type is not MsgType.MOVE or not str(msg.body["move"]).startswith("Draw:"):
            continue
        rest = record[i + 1 :]
        end = next((j for j, m in enumerate(rest) if m.type in _MOVES), None)
        if end is not None:
            out.append((msg, rest[:end]))
    return out


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (4, 5)])
def test_a_draw_costs_one_round_of_messages(players: int, seed: int) -> None:
    """The drawer's signed move, then one share of the drawn position from every other seat,
    and the table is ready for the next move: nothing else, no second round."""
    table = LocalTable(players=players, seed=seed, ruleset="druids2004")
    table.run()
    assert all(m.finished for m in table.machines)
    record = table.machines[0].transcript.messages
    draws = _after_each_draw(record)
    assert len(draws) >= 3, "a game draws several times"
    for move, following in draws:
        assert [m.type for m in following] == [MsgType.TABLE_SHARE] * (players - 1)
        assert len({m.sender for m in following}) == players - 1
        assert move.sender not in {m.sender for m in following}
        assert len({m.body["pos"] for m in following}) == 1, "every share opens one position"


def _round_records(record: Sequence[Message]) -> list[list[Message]]:
    """A Druids (2017) record cut into its rounds: each is its own card table, from its seats'
    keys to their final reveals."""
    rounds: list[list[Message]] = []
    for msg in record:
        if msg.type is MsgType.TABLE_KEY and (not rounds or rounds[-1][-1].type is not msg.type):
            rounds.append([])
        if rounds and msg.type is not MsgType.RESULT:
            rounds[-1].append(msg)
    return rounds


@pytest.mark.parametrize(("players", "seed"), [(3, 4), (5, 6)])
def test_a_druids2017_card_play_is_one_message_and_its_deal_is_counted(
    players: int, seed: int
) -> None:
    """Each round: every seat's key, two passes a seat (``deck``, then ``lead`` after the
    transfers onto Gaia), one ``table_shares`` a seat for each of the two ``deals`` (``lead``
    one card a seat, then ``deck`` round-robin) with its shares of every card dealt to another seat,
    every seat's word on Gaia and its words' check, then the plays: one signed ``table_show``
    each from its player, followed directly by the next move, and the round's final reveal.
    A 3-seat round's deal is 15 messages (it was 102 with one ``deal`` per card, 18 while
    ``lead`` began with a shuffle of Gaia alone), a 5-seat round's 25 (285, then 30)."""
    table = LocalTable(players=players, seed=seed, rounds=2)
    table.run()
    assert all(m.finished for m in table.machines)
    rounds = _round_records(table.machines[0].transcript.messages)
    assert len(rounds) == 2
    dealt = players * HAND_SIZE[players]
    for messages in rounds:
        types = [m.type for m in messages]
        deal = (
            [MsgType.TABLE_KEY] * players
            + [MsgType.TABLE_SHUFFLE] * 2 * players
            + [MsgType.TABLE_SHARES] * 2 * players
        )
        assert types[: len(deal)] == deal
        assert len(deal) == {3: 15, 5: 25}[players]
        shares = [m.body["shares"] for m in messages[len(deal) - 2 * players : len(deal)]]
        assert [len(s) for s in shares] == [players - 1] * players + [
            (dealt - players) * (players - 1) // players
        ] * players
        assert sum(len(s) for s in shares) == dealt * (players - 1), "a share of every card"
        words = messages[len(deal) : len(deal) + 2 * players]
        assert [str(m.body["move"]).split(":")[0] for m in words] == ["Word"] * players + [
            "Words"
        ] * players
        plays = messages[len(deal) + 2 * players :]
        assert [m.type for m in plays[-players:]] == [MsgType.TABLE_REVEAL] * players
        plays = plays[:-players]
        shows = [m for m in plays if m.type is MsgType.TABLE_SHOW]
        assert len(shows) >= players, "a round has card plays"
        assert all(m.type in (MsgType.TABLE_SHOW, MsgType.MOVE) for m in plays)
        assert all(str(m.body["move"]).startswith("Pile:") for m in plays if m.type is MsgType.MOVE)
        assert len({m.body["op"] for m in shows}) == len(shows), "one message per operation"


@pytest.mark.parametrize(("ruleset", "players"), [("druids2004", 4), ("druids2017", 4)])
def test_the_shares_that_arrive_before_the_last_of_their_step_are_checked_as_they_arrive(
    ruleset: str, players: int
) -> None:
    """At every seat some shares had their proof checked while the table still held them
    for the rest of their step (``TablePeer.precheck``), and each of those is in the record
    (Druids 2017: of the last round's table)."""
    table = LocalTable(players=players, seed=5, ruleset=ruleset)
    table.run()
    for machine in table.machines:
        assert machine.card_play is not None
        proven = machine.card_play.peer.state.proven
        kinds = (MsgType.TABLE_SHARE, MsgType.TABLE_SHARES)
        shares = {m.raw for m in machine.transcript.messages if m.type in kinds}
        assert proven and proven <= shares


@pytest.mark.parametrize("ruleset", ["druids2004", "druids2017"])
def test_the_joint_key_is_the_sum_of_the_seat_keys_and_computed_once(ruleset: str) -> None:
    table = LocalTable(players=3, seed=7, ruleset=ruleset)
    table.run()
    play = table.machines[0].card_play
    assert play is not None
    state = play.peer.state
    keys = [state.keys[s].msg.key for s in range(state.seats)]
    joint = state.joint_key
    assert joint == group.sum_points(keys)
    assert state.joint_key is joint, "asked again: the same value, not a new sum"


@pytest.mark.parametrize(
    ("kinds", "game_over", "kind"),
    [
        (["deal"], False, "draw"),
        (["play"], False, "play"),
        ([], False, "play"),
        (["turn"], False, "play"),
        (["reveal", "return", "turn"], False, "ritual"),
        (["reveal", "return", "return", "shuffle", "shuffle", "deal"], False, "reshuffle"),
        (["reveal", "return", "final"], False, "end"),
        (["deal"], True, "end"),
    ],
)
def test_a_moves_latency_class_is_the_costliest_work_it_set_off(
    kinds: list[str], game_over: bool, kind: str
) -> None:
    assert move_kind(kinds, game_over) == kind
    assert kind in MOVE_KINDS
