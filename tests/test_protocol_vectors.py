"""The protocol documents' vectors and tables are what the implementation computes, line by line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from protocol_vectors import BLOCKS, DOCUMENTS, blocks_in

EXPECTED = {
    "protocol.md": {"coin-flip-vector", "table-secret-vector", "card-table", "move-table"},
    "deck.md": {"table-vector", "nonce-vector"},
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
