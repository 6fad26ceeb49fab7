"""The protocol documents' vectors and tables are what the implementation computes, line by line."""

from __future__ import annotations

from pathlib import Path

import pytest
from protocol_vectors import BLOCKS, DOCUMENTS, blocks_in

EXPECTED = {
    "protocol.md": {"coin-flip-vector", "table-secret-vector", "card-table", "move-table"},
    "deck.md": {"deal-vector", "table-vector", "nonce-vector"},
    "wire.md": {"table-wire-vector"},
}


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_generated_block_of_the_documents_is_what_the_code_computes(path: Path) -> None:
    found = blocks_in(path.read_text(encoding="utf-8"))
    assert set(found) == EXPECTED[path.name], "a generated block is missing from the document"
    for name, lines in found.items():
        assert lines == BLOCKS[name](), f"{path.name}: the {name} block is stale"


def test_a_stale_line_is_noticed() -> None:
    text = DOCUMENTS[0].read_text(encoding="utf-8").replace("| 0 | `G1` |", "| 0 | `G2` |", 1)
    assert blocks_in(text)["card-table"] != BLOCKS["card-table"]()
