"""A Druids (2017) round's deal at the card table, its group operations per seat: counted
faithfully (``druids bench deal --ops``), and the command itself.

The counts are what the deal's speed comes down to (a machine's speed varies, they do not), so the
counter is checked against an independent count made with every libsodium entry point wrapped
(the library's own functions, which ``deck/sodium.py`` reads off its library object at each
call) before any deck operation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_harness import run_cli

from druids_p2p.bench.costs import count_deal_ops
from druids_p2p.bench.tables import OPS, counting
from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points, card_table

ROOT = Path(__file__).resolve().parent.parent


_INDEPENDENT = textwrap.dedent(
    """
    import collections, json, os, sys, threading
    from druids_p2p.deck.sodium import LIB  # libsodium itself, under deck/sodium.py
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
        fn = getattr(LIB, name)
        def counted(*args, _fn=fn, _op=op):
            with lock:
                counts[current[0]][_op] += 1
            return _fn(*args)
        setattr(LIB, name, counted)
    # every call the package makes reads its function off LIB: each one a counted one
    from druids_p2p.bench import costs, tables
    from druids_p2p.deck.table_peer import TablePeer
    players = int(sys.argv[1])
    made = TablePeer.__init__
    def charged_init(self, table_id, round_no, seats, num_cards, codec, **kw):
        current[0] = codec.seat  # a seat's key is made in its constructor
        made(self, table_id, round_no, seats, num_cards, codec, **kw)
    TablePeer.__init__ = charged_init
    call = tables.TableBus._call
    def charged(self, seat, fn):
        current[0] = seat
        return call(self, seat, fn)
    tables.TableBus._call = charged
    costs.deal_round(players, os.urandom(32))
    print(json.dumps([dict(counts[s]) for s in range(players)]))
    """
)


PATH = os.environ.get("PYTHONPATH", "")
"""Kept after the checkout's root: where the games' entry points may be installed."""


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
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), PATH]))},
    )
    independent = json.loads(done.stdout)
    # the card points (a base multiplication each, made once a process) are made again here,
    # charged as in the fresh process to the seat that first asks for them
    card_points.cache_clear()
    card_table.cache_clear()
    ours = count_deal_ops(players)
    for seat in range(players):
        assert {op: n for op, n in ours[seat].items() if op != "hash"} == {
            op: independent[seat].get(op, 0) for op in ("mul", "base", "add", "sub", "valid")
        }, seat
    assert all(counted["mul"] > 500 for counted in ours)


def test_counting_restores_libsodium() -> None:
    before = (group._mul, group.add, group._is_valid)
    with counting() as ops:
        group.mul(group.ONE, group.BASE)
        group.hash_to_point(b"counted")
        assert group._mul is not before[0]
    assert (group._mul, group.add, group._is_valid) == before
    assert ops.of(None)["mul"] == 1 and ops.of(None)["hash"] == 1


def test_druids_bench_deal_times_one_round_at_the_card_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The command's JSON keeps its shape; a 3-seat round's deal is 3 keys, 6 passes (``lead``
    is created as Gaia, no pass) and one
    ``table_shares`` a seat for each of its two ``deals`` (its shares of the 45 cards but its
    own 15); ``--ops`` counts every seat; a bad count is a one-line error, exit 2."""
    code, out, _ = run_cli(
        ["bench", "deal", "--players", "3", "--deals", "1", "--json", "--ops"], capsys
    )
    assert code == 0
    result = json.loads(out)
    assert list(result) == [
        "players",
        "deals",
        "deal_ms",
        "deal_ms_min",
        "deal_ms_max",
        "cpu_ms_per_peer",
        "wall_ms",
        "messages",
        "bytes",
        "ops_per_peer",
    ]
    assert result["messages"] == 3 + 2 * 3 + 2 * 3
    assert len(result["cpu_ms_per_peer"]) == 3 and all(v > 0 for v in result["cpu_ms_per_peer"])
    assert [list(seat) for seat in result["ops_per_peer"]] == [list(OPS)] * 3
    for args, error in (
        (["--players", "6"], "--players must be 3, 4 or 5, not 6"),
        (["--deals", "0"], "--deals must be in 1..10000, not 0"),
    ):
        code, out, err = run_cli(["bench", "deal", *args], capsys)
        assert code == 2 and out == "" and error in err and len(err.strip().splitlines()) == 1
