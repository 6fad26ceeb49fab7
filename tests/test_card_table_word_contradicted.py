"""A false owners' word that no arrangement fits at an honest seat still ends in a verdict
naming the liar, and a false or garbled words' check is blamed on its sender (protocol.md §11,
"The words' check").

Two seats. The cheater (seat-list index 0) gives a false word the first time the other seat can
prove it false from its own cards: with two seats every gem the other does not know is one of
the cheater's face-down gems or discards, so the cheater's own copy tells when that is (the test
asks ``fit_words`` at the honest seat's knowledge). Its machine signs the lie, so its transcript
agrees with everyone's. The honest seat cannot go on from those words; it says so in the words'
check, every seat goes to the final reveal, and the audit names the liar with its signed word.
"""

from __future__ import annotations

from typing import Any

import pytest
from card_table_cheater import CHEATER, cheater_seat, every_honest_machine_blames, run_to_fault
from table_harness import LocalTable

from druids_p2p.audit.audit import audit_messages
from druids_p2p.games.druids2004 import hidden as ow
from druids_p2p.games.druids2004.cards import GEMS
from druids_p2p.games.druids2004.table_seat import TableSeat2004
from druids_p2p.table.card_table_play import WORDS_UNFIT
from druids_p2p.table.table import TableMachine
from druids_p2p.wire import decode

SEEDS = range(200)
"""Each game's ``seed`` is also its ``keys_seed``: the whole game (its shuffles too) is a function
of it, so each test plays the same games every run. With fresh keys the search for a game with a
word to lie about took 1 to 60 games (1.3 s each), a different count every run."""
LIE_FROM = 6
"""The first seed whose game has a word the other seat can disprove (the seeds before give none;
a change that moves it makes the search go on from there)."""
HONEST = 1 - CHEATER


def _lie_where_it_shows(table: LocalTable) -> list[str]:
    """Make the cheater's machine lie once, at the first word the other seat can disprove;
    the lie told (empty until then)."""
    table.run(stop=lambda: table.machines[CHEATER].card_play is not None)
    copy = table.machines[CHEATER].card_play.copy
    assert isinstance(copy, TableSeat2004)
    true_word = copy.own_word
    lied: list[str] = []

    def own_word() -> str | None:
        word = true_word()
        if word is None or lied:
            return word
        lie = ow.NO if word == ow.YES else ow.YES
        asked = copy._trial  # the position the words are asked at (the liar's own gems true)
        assert asked is not None
        down = [sg for p in asked.row if p is not None for sg in p.gems]
        mine = {g for s, g in [*down, *asked.discards] if s == copy.seat}
        other = 1 - copy.seat
        if ow.fit_words(asked, set(GEMS) - mine, other, {copy.seat: lie == ow.YES}) is not None:
            return word  # the other seat could not tell: the truth now, perhaps a lie later
        lied.append(lie)
        return lie

    copy.own_word = own_word  # type: ignore[method-assign]
    return lied


def test_a_word_no_arrangement_fits_is_called_and_blamed_on_its_liar() -> None:
    for seed in SEEDS[LIE_FROM:]:
        table = LocalTable(players=2, seed=seed, ruleset="druids2004", keys_seed=seed)
        lied = _lie_where_it_shows(table)
        fault = run_to_fault(table)
        if not lied:
            assert fault is None, f"an honest game stopped: {fault}"
            continue  # no word the other seat could disprove in this game
        honest = table.machines[HONEST]
        assert honest.card_play.copy.words_contradicted, "the honest copy took the lie"
        assert fault is not None, "the contradicted words were never judged"
        assert fault.seat == cheater_seat(table), str(fault)
        assert str(fault).startswith("audit: ") and "owners' word" in str(fault), str(fault)
        assert "is false" in str(fault), str(fault)
        (evidence,) = fault.evidence
        word = decode(evidence)
        assert word.sender == table.ids[CHEATER].public_key
        assert word.body["move"] == lied[0]
        assert honest.card_contradiction is not None
        assert honest.card_contradiction.sender == table.ids[HONEST].public_key
        assert honest.card_contradiction.body["move"] == WORDS_UNFIT
        fullest = max(table.machines, key=lambda m: len(m.transcript.messages))
        report = audit_messages([m.raw for m in fullest.transcript.messages])  # every secret
        assert report.problem is not None, report.verdict  # druids audit names the liar too
        assert report.problem.seat == cheater_seat(table), report.problem
        assert "is false" in report.problem.error, report.problem
        every_honest_machine_blames(table, fault, HONEST)
        return
    raise AssertionError(f"no game in {len(SEEDS)} gave a word the other seat could disprove")


@pytest.mark.parametrize(
    ("check", "why"),
    [
        (WORDS_UNFIT, "called the owners' words contradicted, but every word is true"),
        ("Stop", "sent 'Stop' when the words' check was due"),
    ],
)
def test_a_false_or_garbled_words_check_is_blamed_on_its_sender(check: str, why: str) -> None:
    """The cheater's machine sends ``check`` as its check of every round of true words (signed
    by it, so its own transcript agrees): the table reveals everything and, every word being
    true, blames the call; a token that is no check is refused at once."""
    for seed in SEEDS:
        table = LocalTable(players=2, seed=seed, ruleset="druids2004", keys_seed=seed)
        cheater = table.machines[CHEATER]

        def seated(cheater: TableMachine = cheater) -> bool:
            return cheater.card_play is not None

        table.run(stop=seated)
        play = cheater.card_play
        sent: list[bytes] = []

        def false_check(play: Any = play, sent: list[bytes] = sent) -> list[bytes]:
            if play.copy.words_due():
                return []
            play.checking = True
            sent.append(play._seal_move(check).raw)
            return sent[-1:]

        play._check_words = false_check
        fault = run_to_fault(table)
        if not sent:
            assert fault is None, f"an honest game stopped: {fault}"
            continue  # no owners' word in this game
        assert fault is not None, "the false check was accepted"
        assert why in str(fault), str(fault)
        assert fault.seat == cheater_seat(table), str(fault)
        assert fault.evidence == (sent[0],)
        every_honest_machine_blames(table, fault, HONEST)
        return
    raise AssertionError(f"no game in {len(SEEDS)} asked for the owners' word")
