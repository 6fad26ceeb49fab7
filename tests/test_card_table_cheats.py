"""Druids (2004) cheats at a table of real table machines: draws, claimed backs, owners' words.

Each test lets seat-list index 0 cheat once (``card_table_cheater``: its message rewritten and
re-signed with its own key) and checks that every honest machine stops blaming that seat, with
the signed message as evidence: a draw from an empty source or from a source the drawer may not
take, a servant passed off as a gem or a gem as a servant, and a false owners' word. Games are
random, so each test plays seeds until the cheat had its chance (the chance is common: a game
that never gives it in the seeds tried fails the test rather than passing it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from card_table_cheater import (
    CHEATER,
    assert_blamed,
    body_with,
    cheater_seat,
    every_honest_machine_blames,
    forge,
    lie_once,
)
from table_harness import LocalTable

from druids_p2p.games.druids2004.cards import GEMS, servants_of
from druids_p2p.games.druids2004.hidden import NO, YES
from druids_p2p.table.table import TableMachine
from druids_p2p.table.table_state import TableFault
from druids_p2p.wire import Message, MsgType, decode

SEEDS = range(40)
WORD_LIE_FROM = 7
"""Of the seeded games (``keys_seed``: the shuffles too, the same every run), the first where the
cheater's lie leaves the game's course unchanged (the search goes on from there if a change
moves it; with fresh keys it took a different 1 to 40 games of 1.3 s every run)."""
Rewrite = Callable[[Message, TableMachine], dict[str, Any] | None]


def _cheat_in_some_game(
    players: int, kind: MsgType, make: Callable[[int], Rewrite], why: str
) -> str:
    """Play games until the cheat was made (``make(cheater's play seat)`` gives the rewrite);
    that game's fault must blame the cheater. Returns the fault's reason."""
    for seed in SEEDS:
        table = LocalTable(players=players, seed=seed, ruleset="druids2004")
        forgery, fault = forge(table, kind, _lazily(table, make))
        if forgery.forged is None:
            assert fault is None, f"an honest game stopped: {fault}"
            continue
        assert_blamed(table, forgery, fault, why)
        return str(fault)
    raise AssertionError(f"no game in {len(SEEDS)} gave the cheater its chance")


def _lazily(table: LocalTable, make: Callable[[int], Rewrite]) -> Rewrite:
    """``make``'s rewrite for the cheater's play seat, known once the table is seated."""

    def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
        return make(cheater_seat(table))(msg, honest)

    return rewrite


def _seat_world(honest: TableMachine) -> Any:
    """The honest machine's copy of the game (public facts only are read from it here)."""
    return honest.card_play.copy.world


@pytest.mark.parametrize(
    ("honest_draw", "forged_draw", "why"),
    [
        ("Draw:servant", "Draw:gem", "the gem pile is empty"),
        ("Draw:gem", "Draw:servant", "reserve is empty"),
    ],
)
def test_a_draw_from_an_empty_source_is_refused_and_blamed(
    honest_draw: str, forged_draw: str, why: str
) -> None:
    def make(me: int) -> Rewrite:
        def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
            world = _seat_world(honest)
            empty = not world.pile if forged_draw == "Draw:gem" else not world.reserves[me]
            if msg.body["move"] != honest_draw or not empty:  # sources only ever shrink
                return None
            return body_with(msg, move=forged_draw)

        return rewrite

    assert "move is refused" in _cheat_in_some_game(2, MsgType.MOVE, make, why)


@pytest.mark.parametrize(
    "source", ["Draw:reserve:{other}", "Draw:servant:{other}", "Draw:S{other}"]
)
def test_a_draw_from_another_players_source_is_refused_and_blamed(source: str) -> None:
    """A draw names its source by the mover's own word only (``Draw:gem``: the common pile,
    ``Draw:servant``: its own reserve; each seat's copy deals it from that deck), so any other
    reserve can only be named by a token of the cheater's making: refused when it arrives."""

    def make(me: int) -> Rewrite:
        def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
            if not str(msg.body["move"]).startswith("Draw:"):
                return None
            return body_with(msg, move=source.format(other=(me + 1) % 2))

        return rewrite

    _cheat_in_some_game(2, MsgType.MOVE, make, "unknown move token")


def test_a_servant_discarded_as_a_gem_is_refused_and_blamed() -> None:
    """A face-down discard is a gem's move; the cheater discards a servant position instead
    (its back, the reserve it came from, is public)."""

    def make(me: int) -> Rewrite:
        def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
            state = honest.card_play.peer.state
            servants = [
                p
                for p in state.zone(f"hand:{me}")
                if state.positions[p].deck.startswith("reserve:")
            ]
            if msg.body["zone"] != "discards" or not servants:
                return None
            return body_with(msg, pos=servants[0])

        return rewrite

    _cheat_in_some_game(2, MsgType.TABLE_PLAY, make, "only a gem is discarded")


@pytest.mark.parametrize("claim", ["a gem as a servant", "a servant as a gem"])
def test_a_card_of_the_other_back_claimed_at_a_ritual_is_blamed_on_its_owner(claim: str) -> None:
    """At a ritual the owner of each face-down card there opens it, naming the card: the
    cheater names a servant of its own for a gem it put there, or a gem for a servant."""
    deck = "gems" if claim == "a gem as a servant" else "reserve:"

    def make(me: int) -> Rewrite:
        fake = servants_of(me)[0] if deck == "gems" else GEMS[0]

        def rewrite(msg: Message, honest: TableMachine) -> dict[str, Any] | None:
            state = honest.card_play.peer.state
            opens = [dict(o) for o in msg.body["opens"]]
            for opening in opens:
                if state.positions[opening["pos"]].deck.startswith(deck):
                    opening["card"] = fake
                    return body_with(msg, opens=opens)
            return None

        return rewrite

    _cheat_in_some_game(3, MsgType.TABLE_OPEN, make, "claimed card")


def test_a_false_owners_word_is_blamed_on_its_seat_at_the_final_audit() -> None:
    """Nothing can tell the lie before the final reveal shows every card; then every honest
    seat names the liar, its signed word the evidence. The test keeps a game where another
    seat's word in that round was yes: the game goes on either way, so the liar's machine, whose
    own copy decides from its true cards, stays in step with the table (where every other word
    is no the lie changes the course, and the liar's machine, not the table, goes astray)."""
    for seed in SEEDS[WORD_LIE_FROM:]:
        table = LocalTable(players=2, seed=seed, ruleset="druids2004", keys_seed=seed)
        lie_once(table)
        try:
            table.run()
        except TableFault as caught:
            fault: TableFault | None = caught
        else:
            fault = None
        honest = table.machines[CHEATER + 1].card_play.copy
        me = cheater_seat(table)
        mine = next((c for c in honest.claims if c.seat == me), None)
        if mine is None or not any(
            c.said for c in honest.claims if c.round == mine.round and c.seat != me
        ):
            continue  # no word, or one that changed the course of the game
        assert fault is not None, "the false word was never found"
        assert fault.seat == me and "owners' word" in str(fault), str(fault)
        assert str(fault).startswith("audit: ") and "is false" in str(fault)
        (evidence,) = fault.evidence
        word = decode(evidence)
        assert word.sender == table.ids[CHEATER].public_key
        assert word.body["move"] == (YES if mine.said else NO)
        every_honest_machine_blames(table, fault, CHEATER + 1)
        return
    raise AssertionError(f"no game in {len(SEEDS)} had a word beside another seat's yes")
