"""The plain terminal's player (``lan/peer_config.py`` ``PromptPlayer``) over a real in-process
table of peers (``table_harness.LocalTable``: real machines exchanging their signed messages), for
either game: it shows the rule set's lines of the seat's view and the legal move tokens, reads
any token of the game as a move, and a move the table refuses is asked again with the table's
reason (the table's one check, not the prompt's)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from table_harness import LocalTable

from druids_p2p.games.druids2004.cards import N_GEMS, format_card
from druids_p2p.games.seam import IllegalMove
from druids_p2p.lan.peer_config import MAX_ASKS, PeerError, PromptPlayer
from druids_p2p.peer.runner import MachineView

MAX_STEPS = 500_000
"""More deliveries and moves than a whole game takes."""


Answer = Callable[[str], str]
"""What the person types, given the prompt."""


def typed(token: str) -> Answer:
    return lambda prompt: token


def not_held_2004(prompt: str) -> str:
    """A well-formed 2004 move of a gem this seat does not hold: the table refuses it."""
    hand = next(x for x in prompt.splitlines() if x.startswith("your hand: ")).split()[2:]
    return next(f"{format_card(g)}>1" for g in range(N_GEMS) if format_card(g) not in hand)


class PersonAtSeat0(LocalTable):
    """Peer 0 is played by a :class:`PromptPlayer` as the runner plays it (``runner._play``):
    its answer goes to the machine's ``play``, a refusal back to the player. The person types
    ``script``'s answers first, then a legal token of the prompt (chosen at random)."""

    def __init__(self, script: list[Answer], players: int, ruleset: str) -> None:
        super().__init__(players=players, seed=7, ruleset=ruleset)
        self.prompts: list[str] = []
        self.told: list[str] = []
        self.person = PromptPlayer(self._ask, self.told.append)
        self.script = script
        self.pick = random.Random(1)

    def _ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.script:
            return self.script.pop(0)(prompt)
        legal = next(x for x in prompt.splitlines() if x.startswith("legal: ")).split()[1:]
        return self.pick.choice(legal)

    def move(self, k: int) -> None:
        if k != 0:
            super().move(k)
            return
        move = self.person.poll(MachineView(self.machines[0]))
        assert move is not None
        try:
            raws = self.machines[0].play(move)
        except IllegalMove as exc:
            self.person.refused(move, str(exc))
            return
        self.broadcast(0, raws)


def _play(table: PersonAtSeat0) -> None:
    table.run(MAX_STEPS)
    assert table.machines[0].finished, "the game did not end"


def test_a_person_plays_a_whole_2004_game_by_tokens_and_is_told_each_refusal() -> None:
    table = PersonAtSeat0([typed("xyzzy"), not_held_2004], players=2, ruleset="druids2004")
    _play(table)
    assert table.told[0] == "not a move: unknown move token 'xyzzy'"
    refusal = table.told[1]
    assert refusal.startswith("the table refuses '") and ">1': " in refusal, refusal
    first = table.prompts[0].splitlines()
    assert first[0].startswith("you are P") and first[-1] == "your move> "
    assert [line.split(":")[0] for line in first if line.startswith("  place ")] == [
        f"  place {n}" for n in range(1, 7)
    ]
    assert "scores: P0:0 P1:0" in first
    assert table.prompts[1] == table.prompts[0] == table.prompts[2]  # asked again, same view
    assert len(table.told) == 2 and len(table.prompts) > 10


def test_places_are_numbered_1_to_6_in_the_lines_the_tokens_and_the_refusals() -> None:
    """The terminal UI numbers the places 1-6 (its keys): so do the plain terminal's lines, the
    move tokens it offers and reads (``K7>6`` is place 6, the notation's slot 5) and the
    table's reasons; ``>0`` is no place."""
    gem_to_0 = lambda prompt: not_held_2004(prompt).replace(">1", ">0")  # noqa: E731
    table = PersonAtSeat0(
        [gem_to_0, typed("Ritual:1"), typed("Ritual:7")], players=2, ruleset="druids2004"
    )
    _play(table)
    assert table.told[0].endswith(">0' (places are 1..6)"), table.told[0]
    assert table.told[1].startswith("the table refuses 'Ritual:1': place 1 ("), table.told[1]
    assert "slot" not in table.told[1]
    assert table.told[2] == "not a move: unknown move token 'Ritual:7' (places are 1..6)"
    offered = {t for p in table.prompts for t in p.splitlines()[-2].split()[1:]}
    places = {int(t[-1]) for t in offered if ">" in t or t.startswith("Ritual:")}
    assert places <= set(range(1, 7)) and 6 in places and 0 not in places
    machine = table.machines[1]
    assert machine.finished  # the other peer agreed on every typed move


def test_a_person_plays_a_whole_2017_game_by_tokens() -> None:
    table = PersonAtSeat0([typed("xyzzy")], players=3, ruleset="druids2017")
    _play(table)
    assert len(table.told) == 1 and table.told[0].startswith("not a move: ")
    first = table.prompts[0].splitlines()
    assert first[0].startswith("round 1, trick: ") and first[1].startswith("your hand: ")
    assert first[2].startswith("legal: ") and first[-1] == "your move> "


def test_a_person_who_gives_no_move_stops_the_peer_after_max_asks() -> None:
    table = PersonAtSeat0([typed("nonsense")] * MAX_ASKS, players=2, ruleset="druids2004")
    with pytest.raises(PeerError, match=f"no legal move entered in {MAX_ASKS} answers"):
        _play(table)
