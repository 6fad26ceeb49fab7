"""``druids bench table``: a whole game of random bots over real peer processes on loopback."""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path

import typer

from druids_p2p.cli.app import bench_app, fail, game_option, pick_game, players_option
from druids_p2p.games.registry import new_table_options


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
    from druids_p2p.table.moves import MOVE_KINDS

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
