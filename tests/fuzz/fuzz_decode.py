"""Coverage-guided fuzz target for ``druids_p2p.wire.decode`` (not collected by pytest).

Run with atheris (``pip install atheris``)::

    python tests/fuzz/fuzz_decode.py -max_len=70000 -runs=1000000

Seeds the corpus with valid messages of every kind, so mutations reach the schema and signature
checks. Any exception other than WireError is a bug and stops the fuzzer with the input.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: the sample_table helper

with atheris.instrument_imports():
    from sample_table import SampleTable, play_sample_game

    from druids_p2p.wire import WireError, decode, equivocation_body


def _write_seeds(directory: Path) -> None:
    table = SampleTable(3, seed=1)
    play_sample_game(table, seed=1, rounds=1)
    a = table.make(1, "move", {"round": 0, "move": "G1"})
    b = table.make(1, "move", {"round": 0, "move": "G2"})
    extra = [
        table.make(0, "equivocation", equivocation_body(a, b)),
        table.make(2, "abort", {"reason": "fuzz", "seat": 1}),
        table.make(2, "resend", {"head": table.transcript.head}),
    ]
    directory.mkdir(parents=True, exist_ok=True)
    for i, raw in enumerate([*table.raws[:30], *extra]):
        (directory / f"seed-{i:03d}").write_bytes(raw)


def test_one_input(data: bytes) -> None:
    with contextlib.suppress(WireError):
        decode(data)


def main() -> None:
    corpus = Path(__file__).with_name("corpus")
    if not corpus.exists():
        _write_seeds(corpus)
    atheris.Setup([sys.argv[0], str(corpus), *sys.argv[1:]], test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
