"""The rule bot is clearly stronger than random play (duplicate deals, fixed seeds).

Measured when written: 4 players, 60 deals x 4 seats, seeds 1000..1059: rule outscores the mean of
three random players by +29.2 ± 1.5 points a game (a random player totals about 33 a game).
"""

from __future__ import annotations

from druids_p2p.bots import RandomBot
from druids_p2p.games.druids2017.rule_bot import RuleBot
from druids_p2p.testing import duplicate_margin


def test_rule_beats_random_on_duplicate_deals() -> None:
    report = duplicate_margin(RuleBot, RandomBot, games=60, players=4, seed=1000)
    print(f"rule vs 3 random: {report.mean:+.1f} ± {report.stderr:.1f} over {report.games} games")
    assert report.games == 240
    assert report.mean > 10.0, report  # > 0 is the requirement; > 10 catches regressions


def test_random_against_itself_is_even() -> None:
    report = duplicate_margin(RandomBot, RandomBot, games=10, players=3, seed=0)
    assert abs(report.mean) < 4 * report.stderr + 1.0
