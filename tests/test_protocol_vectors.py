"""The protocol documents' vectors and tables are what the implementation computes, line by line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from protocol_vectors import BLOCKS, DOCUMENTS, blocks_in

EXPECTED = {
    "protocol.md": {"coin-flip-vector", "table-secret-vector", "card-table", "move-table"},
    "deck.md": {"table-vector", "nonce-vector", "round-2017-vector"},
    "wire.md": {"table-wire-vector"},
}
CHECKED_ELSEWHERE = {"shuffle-vector"}
"""deck.md's shuffle proof vector: tests/test_shuffle_proof.py recomputes it."""


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_generated_block_of_the_documents_is_what_the_code_computes(path: Path) -> None:
    found = blocks_in(path.read_text(encoding="utf-8"))
    assert set(found) == EXPECTED[path.name], "a generated block is missing from the document"
    for name, lines in found.items():
        assert lines == BLOCKS[name](), f"{path.name}: the {name} block is stale"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_vector_a_document_marks_is_one_the_code_computes(path: Path) -> None:
    """No orphan: a vector whose generator is gone (version 1's dealt-deck ``deal-vector``)
    may not stay in a document, unchecked."""
    marked = set(re.findall(r"<!-- ([a-z-]+-vector) -->", path.read_text(encoding="utf-8")))
    computed = set(BLOCKS) | CHECKED_ELSEWHERE
    assert marked <= computed, f"{path.name}: no code computes {sorted(marked - computed)}"


def test_a_stale_line_is_noticed() -> None:
    text = DOCUMENTS[0].read_text(encoding="utf-8").replace("| 0 | `G1` |", "| 0 | `G2` |", 1)
    assert blocks_in(text)["card-table"] != BLOCKS["card-table"]()


def test_deck_md_2017_round_is_the_schedule_protocol_md_gives() -> None:
    """deck.md §14.2 shows what protocol.md §11.2 says a round is: keys, two shuffles of one
    pass per seat (``lead`` is created as Gaia: no pass), the two deals of the 45 cards (each
    seat's one ``table_shares`` for the others' cards of each), one Word:yes from the seat dealt
    Gaia at its lead position, every seat's check, then that seat leads Gaia into gaia:D."""
    lines = blocks_in(DOCUMENTS[1].read_text(encoding="utf-8"))["round-2017-vector"]
    sent = [re.match(r"(\w+) seq \d+ type (\d+) (\w+)(.*?): \d+ bytes", line) for line in lines]
    kinds = [(m[1], m[3], m[4]) for m in sent if m is not None]
    count = {k: sum(1 for _, kind, _ in kinds if kind == k) for k in {k for _, k, _ in kinds}}
    assert count == {
        "table_key": 3,
        "table_shuffle": 6,
        "table_shares": 6,
        "move": 6,
        "table_show": 3,
        "table_reveal": 3,
    }
    yes = [who for who, kind, what in kinds if what == " Word:yes"]
    shows = [(who, what) for who, kind, what in kinds if kind == "table_show"]
    assert len(yes) == 1 and shows[0][0] == yes[0]
    seat = ["alice", "bob", "carol"].index(yes[0])
    assert re.fullmatch(rf" op 7 pos {seat} card 60 zone gaia:[GYRBV]", shows[0][1])
    shares = [what for _, kind, what in kinds if kind == "table_shares"]
    assert shares[:3] == [" op 5 pos 1,2", " op 5 pos 0,2", " op 5 pos 0,1"]
    assert [w.split(" (")[-1] for w in shares[3:]] == ["28)"] * 3, "42 cards, 28 of them others'"
    hands = [line for line in lines if line.startswith("seat ") and "hand" in line]
    assert f" {seat}:60 " in hands[seat] + " " and all(line.count(":") == 16 for line in hands)
