"""Druids (2016) bots against each other: N seeded games, wins/draws/losses with a Wilson 95%
interval, and the first player's win rate and the draw rate (the balance line of issue 31 when
both sides are the same bot).

Game ``i`` is set up from seed ``SEED + i // 2`` with player ``i % 2`` moving first, so every
setup is played from both chairs. ``A`` is player 0. A move's budget is ``--ms`` of the clock
(``time.perf_counter``, read only through the budget) and/or ``--nodes``; a node budget alone
makes the whole run reproducible.

    PYTHONPATH=. python3 tools/bench_2016.py search rule --games 60 --ms 100
    PYTHONPATH=. python3 tools/bench_2016.py search search --nodes 300 --max-minutes 10
"""

from __future__ import annotations

import argparse
import sys
import time

from druids_p2p.games.druids2016.policy import Budget, Policy, random_move, rule_move
from druids_p2p.games.druids2016.search import play_game, search_move, wilson

POLICIES: dict[str, Policy] = {"random": random_move, "rule": rule_move, "search": search_move}


def _rate(name: str, count: int, n: int) -> str:
    lo, hi = wilson(count, n)
    share = count / n if n else 0.0
    return f"{name} {count}/{n} = {share:.1%} (95% Wilson {lo:.1%}-{hi:.1%})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", choices=sorted(POLICIES), help="player 0's policy")
    parser.add_argument("b", choices=sorted(POLICIES), help="player 1's policy")
    parser.add_argument("--games", type=int, default=1_000_000, help="at most this many games")
    parser.add_argument("--max-minutes", type=float, default=None, help="start no game after")
    parser.add_argument("--ms", type=float, default=None, help="time budget a move (ms)")
    parser.add_argument("--nodes", type=int, default=None, help="node budget a move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="what --ms measures: wall time (perf_counter) or this process's CPU time",
    )
    parser.add_argument("--every", type=int, default=10, help="print a progress line every N")
    args = parser.parse_args()
    if args.ms is None and args.nodes is None:
        print("bench_2016: give --ms, --nodes or both", file=sys.stderr)
        return 2
    if args.games < 1 or (args.ms is not None and args.ms <= 0):
        print("bench_2016: --games must be >= 1 and --ms > 0", file=sys.stderr)
        return 2
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    seconds = None if args.ms is None else args.ms / 1000
    budget = Budget(nodes=args.nodes, seconds=seconds, clock=clock if seconds else None)
    policies = (POLICIES[args.a], POLICIES[args.b])
    started = time.perf_counter()
    wins = draws = losses = first_wins = plies = 0
    reasons: dict[str, int] = {}
    n = 0
    for i in range(args.games):
        if args.max_minutes is not None and time.perf_counter() - started >= 60 * args.max_minutes:
            break
        played = play_game(policies, (budget, budget), args.seed + i // 2, i % 2)
        n += 1
        result = played.result
        plies += played.plies
        reasons[result.reason] = reasons.get(result.reason, 0) + 1
        if result.winner is None:
            draws += 1
        elif result.winner == 0:
            wins += 1
        else:
            losses += 1
        first_wins += result.winner == played.first
        if args.every and n % args.every == 0:
            so_far = time.perf_counter() - started
            print(f"  {n} games: {wins}-{draws}-{losses} ({so_far:.0f} s)", flush=True)
    elapsed = time.perf_counter() - started
    parts = (f"{args.ms:g} ms" if args.ms else "", f"{args.nodes} nodes" if args.nodes else "")
    budget_text = " and ".join(part for part in parts if part)
    print(f"{args.a} (A) vs {args.b} (B), {budget_text} a move ({args.clock} clock)")
    print(f"seed {args.seed}, {n} games")
    print(f"A wins/draws/losses: {wins}/{draws}/{losses}")
    print(_rate("A wins", wins, n))
    print(_rate("first player wins", first_wins, n))
    print(_rate("draws", draws, n))
    print("ends: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    print(
        f"time {elapsed:.1f} s, {elapsed / max(n, 1):.2f} s a game, "
        f"{plies / max(n, 1):.1f} moves a game, {1000 * elapsed / max(plies, 1):.1f} ms a move"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
