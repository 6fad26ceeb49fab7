"""The deal's group operations per seat: counted faithfully, and as deck.md §13 documents them.

The counts are what the deal's speed comes down to (a machine's speed varies, they do not), so
the documented table is checked against a real deal, and the counter against an independent
count made with every libsodium entry point wrapped before the package is imported.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from deck_local import deal
from druids_p2p.deck.audit import audit_log

from druids_p2p.bench.deal_table import count_deal_ops, make_table
from druids_p2p.bench.group_ops import counting
from druids_p2p.deck import DeckParams, group

ROOT = Path(__file__).resolve().parent.parent
DECK_MD = ROOT / "docs" / "protocol" / "deck.md"


def _druids_params(players: int) -> DeckParams:
    from druids_p2p.games.druids2017 import GAIA, HAND_SIZE, N_CARDS

    return DeckParams(
        table_id=os.urandom(32),
        round_no=1,
        num_cards=N_CARDS,
        seats=players,
        hand_size=HAND_SIZE[players],
        required=frozenset({GAIA}),
    )


_INDEPENDENT = textwrap.dedent(
    """
    import collections, json, os, sys, threading
    import rbcl
    names = {
        "crypto_scalarmult_ristretto255": "mul",
        "crypto_scalarmult_ristretto255_base": "base",
        "crypto_core_ristretto255_add": "add",
        "crypto_core_ristretto255_sub": "sub",
        "crypto_core_ristretto255_is_valid_point": "valid",
    }
    counts = collections.defaultdict(collections.Counter)
    current = [None]
    lock = threading.Lock()  # the deck multiplies on two threads (deck/lincomb.py)
    for name, op in names.items():
        fn = getattr(rbcl, name)
        def counted(*args, _fn=fn, _op=op):
            with lock:
                counts[current[0]][_op] += 1
            return _fn(*args)
        setattr(rbcl, name, counted)
    # only now the package: every name it binds to libsodium is a counted one
    from druids_p2p.bench import deal_table
    from druids_p2p.deck import DeckParams, DeckPeer
    from druids_p2p.games.druids2017 import GAIA, HAND_SIZE, N_CARDS
    players = int(sys.argv[1])
    params = DeckParams(os.urandom(32), 1, N_CARDS, players, HAND_SIZE[players],
                        frozenset({GAIA}))
    peers = []
    for codec in deal_table.make_codecs(params):
        current[0] = codec.seat
        peers.append(DeckPeer(params, codec))
    bus = deal_table.LocalBus(peers)
    call = bus.call
    def charged(seat, fn):
        current[0] = seat
        return call(seat, fn)
    bus.call = charged
    bus.start()
    bus.run()
    for peer in peers:
        current[0] = peer.seat
        peer.hand()
    print(json.dumps([dict(counts[s]) for s in range(players)]))
    """
)


def test_the_counter_misses_no_libsodium_call() -> None:
    """Counted by the bench's counter in this process, and independently in a fresh one whose
    libsodium was wrapped before any module of the package bound a name to it: the same."""
    players = 3
    done = subprocess.run(
        [sys.executable, "-c", _INDEPENDENT, str(players)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    independent = json.loads(done.stdout)
    ours = count_deal_ops(_druids_params(players))
    for seat in range(players):
        assert {op: n for op, n in ours[seat].items() if op != "hash"} == {
            op: independent[seat].get(op, 0) for op in ("mul", "base", "add", "sub", "valid")
        }, seat
    assert all(counted["mul"] > 1000 for counted in ours)


def test_counting_restores_libsodium() -> None:
    before = (group._mul, group.add, group._is_valid)
    with counting() as ops:
        group.mul(group.ONE, group.BASE)
        assert group._mul is not before[0]
    assert (group._mul, group.add, group._is_valid) == before
    assert ops.of(None)["mul"] == 1


def _documented() -> dict[int, tuple[int, int, int]]:
    """deck.md §13's table: seat -> (generic multiplications, base ones, additions)."""
    text = DECK_MD.read_text(encoding="utf-8")
    section = text[text.index("## 13. Cost") : text.index("## 14.")]
    rows: dict[int, tuple[int, int, int]] = {}
    for line in section.splitlines():
        m = re.fullmatch(r"\| ([\d, ]+) \| ([\d ]+) \| ([\d ]+) \| ([\d ]+) \|", line.strip())
        if m is None:
            continue
        mul, base, add = (int(m.group(k).replace(" ", "")) for k in (2, 3, 4))
        for seat in m.group(1).split(","):
            rows[int(seat)] = (mul, base, add)
    return rows


@pytest.mark.parametrize("players", [5])
def test_deck_md_cost_table_is_what_a_deal_makes(players: int) -> None:
    documented = _documented()
    assert sorted(documented) == list(range(players))
    counted = count_deal_ops(_druids_params(players))
    for seat in range(players):
        got = counted[seat]
        assert (got["mul"], got["base"], got["add"]) == documented[seat], seat


def test_a_live_audit_does_not_recompute_its_own_shuffle() -> None:
    """A live peer made its own shuffle from the seed it revealed: its end-of-round audit
    recomputes only the others' (2 base multiplications per ciphertext fewer than a full one),
    and still blames a shuffle that its seed did not make (tests/test_deck_cheats.py)."""
    params = _druids_params(4)
    peers = make_table(params)
    bus = deal(peers)
    for peer in peers:
        bus.post(peer.seat, [peer.reveal()])
    bus.run()
    size = len(peers[0].log.shuffles[0].msg.a)
    for peer in peers:
        with counting() as own:
            peer.audit()
        with counting() as full:
            audit_log(params, peer.log, proofs_checked=True)
        assert full.of(None)["base"] - own.of(None)["base"] == 2 * size, peer.seat
        assert full.of(None)["mul"] == own.of(None)["mul"]
