"""``druids bench engine|deal|table|wire``: what a move, a deal, a whole table and a frame cost on
this machine, each a JSON line so that two commits are compared side by side."""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import typer

from druids_p2p.cli.app import bench_app, fail, game_option, pick_game, players_option
from druids_p2p.games.registry import new_table_options, players_help
from druids_p2p.games.spec import GameSpec


def bench_engine(
    spec: GameSpec, players: int, games: int, seed: int, variant: bool
) -> dict[str, object]:
    """Games and moves per second of uniformly random legal play of ``spec``'s game."""
    options = spec.rules.make_options(players, variant)
    rng = random.Random(seed)
    moves = 0
    start = time.perf_counter()
    if spec.playout is not None:
        for _ in range(games):
            moves += spec.playout(rng, options)
    else:
        from druids_p2p.bots.local_game import Seat, run_game

        for g in range(games):
            seats = [Seat("random", None, random.Random(f"{seed}/{g}/{s}")) for s in range(players)]
            result = run_game(spec.rules, options, seed + g, seats, 0.0)
            moves += sum(len(r.moves) for r in result.rounds)
    seconds = time.perf_counter() - start
    return {
        "game": spec.name,
        "players": players,
        "games": games,
        "moves": moves,
        "seconds": round(seconds, 6),
        "games_per_s": round(games / seconds, 1) if seconds > 0 else 0.0,
        "moves_per_s": round(moves / seconds, 1) if seconds > 0 else 0.0,
    }


@bench_app.command("engine")
def bench_engine_command(
    players: int | None = players_option(),
    games: int = typer.Option(3000, "--games", help="Whole games to play."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random play."),
    variant: bool = typer.Option(False, "--variant", help="Allow the game's variant, if any."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    game: str = game_option(),
) -> None:
    """Random legal play of whole games on one core: games/s and moves/s."""
    spec = pick_game(game, players)
    seats = players if players is not None else spec.default_players
    if games < 1:
        fail(f"--games must be at least 1, not {games}")
    result = bench_engine(spec, seats, games, seed, variant)
    if as_json:
        print(json.dumps(result))
        return
    print(
        f"{result['games']} games, {result['moves']} moves in {result['seconds']:.3f} s: "
        f"{result['games_per_s']:,.0f} games/s, {result['moves_per_s']:,.0f} moves/s "
        f"({spec.name}, {seats} players, one core)"
    )


@bench_app.command("deal")
def bench_deal_command(
    players: int | None = typer.Option(
        None, "--players", help=players_help() + " [default: the most the game seats]"
    ),
    deals: int = typer.Option(9, "--deals", help="Deals to time; the median is reported."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ops: bool = typer.Option(
        False, "--ops", help="Also count each seat's group operations in one more deal."
    ),
    game: str = game_option(),
) -> None:
    """One game's deal (the default game's: a round's) at the mental card table among N
    in-process peers (keys, shuffles, transfers, deals; not the words and moves that follow):
    median total CPU per deal."""
    spec = pick_game(game, players)
    if spec.table is None:
        fail(f"--game {spec.name}: its tables of peers are not dealt here yet")
    players = players if players is not None else spec.max_players
    if not 1 <= deals <= 10_000:
        fail(f"--deals must be in 1..10000, not {deals}")
    from druids_p2p.bench.costs import count_deal_ops, time_deal

    time_deal(players, game=spec.name)  # warm-up: card points, imports, allocator
    runs = [time_deal(players, i % 5, spec.name) for i in range(deals)]
    totals = [sum(run.cpu_ns) / 1e6 for run in runs]
    per_peer = [statistics.median(run.cpu_ns[s] / 1e6 for run in runs) for s in range(players)]
    result = {
        "players": players,
        "deals": deals,
        "deal_ms": round(statistics.median(totals), 2),
        "deal_ms_min": round(min(totals), 2),
        "deal_ms_max": round(max(totals), 2),
        "cpu_ms_per_peer": [round(v, 2) for v in per_peer],
        "wall_ms": round(statistics.median(run.wall_ns / 1e6 for run in runs), 2),
        "messages": runs[0].messages,
        "bytes": runs[0].bytes,
    }
    ops_per_peer = count_deal_ops(players, spec.name) if ops else []
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


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@bench_app.command("table")
def bench_table_command(
    players: int | None = players_option("peer processes"),
    rounds: int | None = typer.Option(
        None, "--rounds", help="Rounds to play, in a game played by rounds [all of them]."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    game: str = game_option(),
) -> None:
    """Game time, deal time per round (its shuffles, deals and words, to the first move) and
    move latency (send to the table ready for the next move, also by class: draw, play,
    ritual, reshuffle, end)."""
    from druids_p2p.peer.local_table import LocalTableError, play_table
    from druids_p2p.table.codec import MOVE_KINDS

    spec = pick_game(game, players)
    game = spec.name
    players = players if players is not None else spec.default_players
    if spec.table is None:
        fail(f"--game {game}: its tables of peers are not dealt here yet")
    by_rounds = spec.rounds > 0
    if rounds is not None and by_rounds and not 1 <= rounds <= spec.rounds:
        fail(f"--rounds must be 1 to {spec.rounds}, not {rounds}")
    if rounds is not None and not by_rounds:
        fail(f"--rounds: a {game} game has no rounds")
    rounds = (rounds or spec.rounds) if by_rounds else 1
    options = new_table_options(game, players, rounds=rounds)
    with tempfile.TemporaryDirectory(prefix="druids-bench-") as tmp:
        try:
            summary = play_table(
                ["bot:random"] * players, options, None, 100.0, Path(tmp), game=game
            )
        except LocalTableError as exc:
            fail(str(exc), 1)
    if not summary["finished"]:
        fail(f"the table did not finish: {summary['aborted']}", 1)
    deal = summary["deal_ms"]
    deal_cpu = summary["deal_cpu_ms"]
    peer_cpu = summary["peer_cpu_s"]
    latency = summary["move_latency_ms"]
    result = {
        "game": game,
        "players": players,
        "rounds": rounds,
        "game_s": summary["game_s"],
        "wall_s": summary["wall_s"],
        "deal_ms": round(statistics.median(deal), 2) if deal else 0.0,
        "deal_cpu_ms": round(statistics.median(deal_cpu), 2) if deal_cpu else 0.0,
        "peer_cpu_s": round(statistics.mean(peer_cpu), 3) if peer_cpu else 0.0,
        "move_latency_ms_p50": round(_percentile(latency, 0.5), 3),
        "move_latency_ms_p99": round(_percentile(latency, 0.99), 3),
        "moves_measured": len(latency),
    }
    result.update(_by_kind(summary["move_latency_by_kind"], MOVE_KINDS))
    if as_json:
        print(json.dumps(result))
        return
    what = f"{rounds} rounds" if by_rounds else "one game"
    kinds = ", ".join(
        f"{kind} p50 {result[f'{kind}_latency_ms_p50']:.2f} ms, "
        f"p99 {result[f'{kind}_latency_ms_p99']:.2f} ms (n={result[f'{kind}_measured']})"
        for kind in MOVE_KINDS
        if result[f"{kind}_measured"]
    )
    deal = f"deal {result['deal_ms']:.1f} ms/round ({result['deal_cpu_ms']:.1f} ms CPU a peer)"
    print(
        f"{game}, {players} peers, {what}: game {result['game_s']:.2f} s "
        f"(wall {result['wall_s']:.2f} s with start-up), {deal}, {kinds}, every move "
        f"p50 {result['move_latency_ms_p50']:.2f} ms, "
        f"p99 {result['move_latency_ms_p99']:.2f} ms; {result['peer_cpu_s']:.2f} CPU-s a peer "
        "process (start-up included)"
    )


def _by_kind(latency: dict[str, list[float]], kinds: tuple[str, ...]) -> dict[str, float | int]:
    """p50, p99 and count of each class of move: a reshuffle's proven shuffles by every seat
    and the game's final audit are other work than a draw, and one percentile over all of
    them would say neither what a draw costs nor what a reshuffle does."""
    out: dict[str, float | int] = {}
    for kind in kinds:
        values = latency.get(kind, [])
        out[f"{kind}_latency_ms_p50"] = round(_percentile(values, 0.5), 3)
        out[f"{kind}_latency_ms_p99"] = round(_percentile(values, 0.99), 3)
        out[f"{kind}_measured"] = len(values)
    return out


@bench_app.command("wire")
def bench_wire_command(
    n: int = typer.Option(2000, "--n", help="Messages to encode and then decode."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Encode+sign and decode+verify of a move message, per second."""
    if n < 1:
        fail(f"--n must be at least 1, not {n}")
    from druids_p2p.bench.costs import bench_wire

    result = bench_wire(n)
    if as_json:
        print(json.dumps(result.as_dict()))
        return
    print(
        f"{result.n} move messages of {result.message_bytes} bytes: "
        f"{result.encode_per_s:,.0f} encode+sign/s, {result.decode_per_s:,.0f} decode+verify/s "
        "(one core)"
    )
