"""Decision screen for the Druids (2017) ``search`` bot: regret against perfect information.

Game screens need about a hundred games (an hour on this machine) to tell two variants apart;
this tool asks each variant for its move at the same positions instead, and rates the move by
rollouts in the *true* world (the hidden hands known, common random numbers): the regret is
what the move loses against the best move there. A bot that knew the hands (``cheat``: the
same rollouts on other numbers) shows the floor, the rollouts' own noise; the gap between it
and a variant is what the hidden cards cost that variant, so what better worlds can win back.
Positions come from 4-player rounds played by ``rule`` bots, one seat a seed.

    PYTHONPATH=. python3 tools/regret_2017.py --seeds 100:125 'chain={"chain": [200, 12]}'
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from typing import Any

from druids_p2p.games.druids2017 import Game, GameOptions, deal
from druids_p2p.games.druids2017.cards import GAIA_DARK, PLAY_MISTLETOE
from druids_p2p.games.druids2017.rollout import ModelRound, rollout_draws
from druids_p2p.games.druids2017.rule_bot import rule_move
from druids_p2p.games.druids2017.search import DRAWS, SearchBot

PLAYERS = 4


def true_values(game: Game, seat: int, legal: list[int], rollouts: int, seed: int) -> list[float]:
    """Each move's mean margin in the true world over ``rollouts`` rollouts (common numbers)."""
    assert game.round is not None
    base = ModelRound.from_round(game.round)
    rng = random.Random(seed)
    totals = [0.0] * len(legal)
    for _ in range(rollouts):
        draws = [rng.random() for _ in range(DRAWS)]
        for i, move in enumerate(legal):
            state = base.copy()
            scores = state.scores() if state.play(move) else rollout_draws(state, draws)
            totals[i] += scores[seat] - (sum(scores) - scores[seat]) / (PLAYERS - 1)
    return [t / rollouts for t in totals]


def search_move(view: Any, options: dict[str, Any], seed: int) -> int:
    """The move of ``search`` with these options (``worlds``: its fixed work) at ``view``."""
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    worlds = options.pop("worlds", 400)
    bot = SearchBot(worlds, None, **options)
    bot.start_game(view.seat, GameOptions(players=PLAYERS), random.Random(seed), 100.0)
    move: int = bot.choose(view)
    return move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", help='name={"option": value, ...} (SearchBot)')
    parser.add_argument("--seeds", default="100:125", help="first:last seed (one round each)")
    parser.add_argument("--rollouts", type=int, default=300, help="rollouts a move for the truth")
    args = parser.parse_args()
    variants: dict[str, dict[str, Any]] = {"search": {}}
    for text in args.variants:
        name, _, options = text.partition("=")
        variants[name] = json.loads(options or "{}")
    first, last = (int(x) for x in args.seeds.split(":"))
    regret: dict[str, list[float]] = {name: [] for name in [*variants, "cheat"]}
    spent: dict[str, list[float]] = {name: [] for name in regret}
    for seed in range(first, last):
        game = Game(GameOptions(players=PLAYERS))
        game.start_round(deal(random.Random(seed), PLAYERS))
        while not game.round_over and game.to_move is not None:
            view = game.view(game.to_move)
            legal = list(view.legal)
            naming = GAIA_DARK <= legal[0] < PLAY_MISTLETOE
            if view.seat == seed % PLAYERS and len(legal) > 1 and not naming:
                key = seed * 100 + len(view.tricks)
                truth = true_values(game, view.seat, legal, args.rollouts, 12345)
                best = max(truth)
                began = time.process_time()
                known = true_values(game, view.seat, legal, 400, key)
                pick = legal[max(range(len(legal)), key=lambda i: (known[i], -i))]
                spent["cheat"].append(time.process_time() - began)
                regret["cheat"].append(best - truth[legal.index(pick)])
                for name, options in variants.items():
                    began = time.process_time()
                    move = search_move(view, dict(options), key)
                    spent[name].append(time.process_time() - began)
                    regret[name].append(best - truth[legal.index(move)])
            game.play(rule_move(view))
    count = len(regret["search"])
    print(f"positions {count} (seeds {first}-{last - 1}); regret in points, paired with search")
    for name, values in regret.items():
        diffs = [a - b for a, b in zip(values, regret["search"], strict=True)]
        half = 1.96 * statistics.stdev(diffs) / math.sqrt(count) if count > 1 and any(diffs) else 0
        print(
            f"{name:14s} regret {statistics.fmean(values):.3f}  "
            f"vs search {statistics.fmean(diffs):+.3f} +-{half:.3f}  "
            f"cpu {1000 * statistics.fmean(spent[name]):.1f} ms a move"
        )


if __name__ == "__main__":
    main()
