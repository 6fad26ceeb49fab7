"""``druids bench deal``: CPU cost of one mental-card deal, every peer in this process.

Each deal runs the full commit, key, shuffle and share exchange for fresh peers, with every
message encoded, signed, decoded and verified, and charges CPU time to the peer doing the work.
Signing identities are made outside the timing (they are long-lived); round keys are inside.
``--ops`` adds one more deal, untimed, that counts each seat's group operations
(``druids_p2p.bench.group_ops``): the same on every machine, unlike the CPU figures.
"""

from __future__ import annotations

import json
import os
import statistics
import time

import typer

from druids_p2p.cli.app import bench_app, fail
from druids_p2p.deck import DeckParams
from druids_p2p.games.druids2017 import GAIA, HAND_SIZE, N_CARDS


def _params(players: int, round_no: int) -> DeckParams:
    return DeckParams(
        table_id=os.urandom(32),
        round_no=round_no,
        num_cards=N_CARDS,
        seats=players,
        hand_size=HAND_SIZE[players],
        required=frozenset({GAIA}),
    )


def _one_deal(players: int, round_no: int) -> tuple[list[int], int, int, int]:
    """(per-peer CPU ns, wall ns, messages, bytes) of one deal."""
    from druids_p2p.bench.deal_table import LocalBus, make_codecs, make_table

    params = _params(players, round_no)
    codecs = make_codecs(params)
    wall = time.perf_counter_ns()
    cpu0 = time.process_time_ns()
    peers = make_table(params, codecs=codecs)
    setup = (time.process_time_ns() - cpu0) // players
    bus = LocalBus(peers)
    bus.start()
    bus.run()
    wall = time.perf_counter_ns() - wall
    for peer in peers:
        peer.hand()
    return [ns + setup for ns in bus.cpu_ns], wall, bus.messages, bus.bytes


@bench_app.command("deal")
def bench_deal_command(
    players: int = typer.Option(5, "--players", help="3, 4 or 5 seats (Druids hand sizes)."),
    deals: int = typer.Option(9, "--deals", help="Deals to time; the median is reported."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ops: bool = typer.Option(
        False, "--ops", help="Also count each seat's group operations in one more deal."
    ),
) -> None:
    """Commit, shuffle and deal among N in-process peers: median total CPU per deal."""
    if players not in HAND_SIZE:
        fail(f"--players must be 3, 4 or 5, not {players}")
    if not 1 <= deals <= 10_000:
        fail(f"--deals must be in 1..10000, not {deals}")
    _one_deal(players, 0)  # warm-up: card table, imports, allocator
    runs = [_one_deal(players, i + 1) for i in range(deals)]
    totals = [sum(cpu) / 1e6 for cpu, _, _, _ in runs]
    per_peer = [statistics.median(cpu[s] / 1e6 for cpu, _, _, _ in runs) for s in range(players)]
    result = {
        "players": players,
        "deals": deals,
        "deal_ms": round(statistics.median(totals), 2),
        "deal_ms_min": round(min(totals), 2),
        "deal_ms_max": round(max(totals), 2),
        "cpu_ms_per_peer": [round(v, 2) for v in per_peer],
        "wall_ms": round(statistics.median(w / 1e6 for _, w, _, _ in runs), 2),
        "messages": runs[0][2],
        "bytes": runs[0][3],
    }
    from druids_p2p.bench.deal_table import count_deal_ops

    ops_per_peer = count_deal_ops(_params(players, 0)) if ops else []
    if ops:
        result["ops_per_peer"] = ops_per_peer
    if as_json:
        print(json.dumps(result))
        return
    peers_txt = ", ".join(f"{v:.1f}" for v in per_peer)
    print(
        f"deal, {players} players: {result['deal_ms']:.1f} ms CPU per deal for all peers "
        f"(median of {deals}; min {result['deal_ms_min']:.1f}, max {result['deal_ms_max']:.1f}); "
        f"per peer [{peers_txt}] ms; {result['messages']} messages, {result['bytes']:,} bytes"
    )
    for seat, counted in enumerate(ops_per_peer):
        print(f"  seat {seat}: " + ", ".join(f"{n} {op}" for op, n in counted.items()))
