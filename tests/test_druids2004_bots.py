"""Druids (2004) bots: which games each bot plays, refusals, the guarded host, worlds consistent
with a seat's view, duplicate games, tournaments with --game, and rule beating random."""

from __future__ import annotations

import json
import random
import re
import statistics
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from druids_p2p.bots.host import Bot, BotSpec, RandomBot
from druids_p2p.bots.local_game import play_local_game
from druids_p2p.cli.main import main
from druids_p2p.games.druids2004.cards import N_CARDS
from druids_p2p.games.druids2004.notation import replay
from druids_p2p.games.druids2004.policy import (
    Rule2004Bot,
    Search2004Bot,
    is_consistent,
    sample_world,
)
from druids_p2p.games.druids2004.setup import Options, random_setup
from druids_p2p.games.druids2004.state import Game2004
from druids_p2p.games.druids2004.view import SeatView
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.plugins import builtin_registry

GAME = "druids2004"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    return (info.value.code if isinstance(info.value.code, int) else 0), out.out, out.err


def test_builtin_bots_play_both_games() -> None:
    registry = builtin_registry()
    for name in ("random", "rule", "pimc"):
        assert registry.get(name).games[:2] == ("druids2017", "druids2004")
    # the spec names its bots (imported when one is made): each factory makes the game's bot
    assert type(registry.get("rule").factory_for("druids2004")()) is Rule2004Bot
    assert type(registry.get("pimc").factory_for("druids2004")()) is Search2004Bot
    assert registry.get("random").factory_for("druids2004") is RandomBot
    only_2017 = BotSpec(name="old", factory=RandomBot)
    with pytest.raises(ValueError, match="bot 'old' does not play druids2004"):
        only_2017.factory_for("druids2004")


def test_druids_bots_lists_games(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["bots", "--json"], capsys)
    bots = {b["name"]: b for b in json.loads(out)["bots"]}
    assert code == 0 and bots["rule"]["games"][:2] == ["druids2017", "druids2004"]
    code, out, _ = run(["bots"], capsys)
    assert "GAMES" in out.splitlines()[0]


def test_a_bot_that_does_not_play_the_game_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = tmp_path / "only2017.py"
    plugin.write_text(
        "from druids_p2p.hookspecs import hookimpl\n"
        "from druids_p2p.bots.host import RandomBot\n"
        "@hookimpl\n"
        "def druids_register_bots(register):\n"
        "    register(name='old', factory=RandomBot)\n"
    )
    args = ["--bots", "old,random", "--games", "2", "--plugins-dir", str(tmp_path)]
    code, out, err = run(["tournament", "--game", "druids2004", *args], capsys)
    assert code == 2 and out == ""
    assert err == "druids: error: bot 'old' does not play druids2004 (it plays druids2017)\n"


class Broken(Bot):
    """Raises on its third move, returns nonsense on its fifth, plays randomly otherwise."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def choose(self, view: PlayerView | SeatView) -> int:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("boom")
        if self.calls == 5:
            return -7
        legal = view.legal
        return legal[self.rng.randrange(len(legal))]


def test_host_survives_a_broken_bot_and_the_record_replays() -> None:
    result = play_local_game([Broken(), "rule", "random"], seed=3, budget_ms=50, game=GAME)
    # the fault's kind, before its details (the legal moves come after a "; ")
    stages = [(f.seat, re.split("[:;]", f.text)[0]) for f in result.faults]
    assert stages[:2] == [(0, "raised RuntimeError"), (0, "returned illegal move -7 (unknown)")]
    code, out = replay(json.dumps(result.record()))
    assert code == 0 and out["finished"] and out["scores"] == result.totals


def test_same_seed_same_game_whoever_sits_where() -> None:
    a = play_local_game(["rule", "random"], seed=11, game=GAME)
    b = play_local_game(["rule", "random"], seed=11, game=GAME)
    c = play_local_game(["random", "rule"], seed=11, game=GAME)
    assert a.totals == b.totals and a.record() == b.record()
    assert a.record()["setup"] == c.record()["setup"]  # duplicate games: the same piles


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([2, 3, 4]), steps=st.integers(0, 250))
def test_sampled_worlds_agree_with_the_view(seed: int, n: int, steps: int) -> None:
    rng = random.Random(seed)
    opts = Options(players=n, servants_return=seed % 3 != 0)
    game = Game2004(random_setup(rng, n), opts)
    for _ in range(steps):
        while game.pending_reshuffle is not None:
            game.shuffle_reserve_random(rng)
        if game.game_over:
            break
        game.play(rng.choice(game.legal_moves()))
    while game.pending_reshuffle is not None:
        game.shuffle_reserve_random(rng)
    if game.game_over:
        return
    seat = rng.randrange(n)
    view = game.view(seat)
    world = sample_world(view, opts, rng)
    assert is_consistent(world, view)
    found = [c for h in world.hands for c in h] + world.pile + world.supply
    found += [c for r in world.reserves for c in r] + [g for _, g in world.discards]
    found += world.out + [c for w in world.won for c in w] + list(world.box)
    for slot in world.row:
        if slot is not None:
            found += [slot.place, *(g for _, g in slot.gems), *slot.servants]
    assert sorted(found) == list(range(N_CARDS))


def test_tournament_with_game_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "run"
    args = ["tournament", "--game", "druids2004", "--bots", "rule,random", "--games", "4"]
    code, out, _ = run([*args, "--workers", "1", "--out", str(out_dir), "--json"], capsys)
    assert code == 0
    summary = json.loads(out)
    assert summary["games"] == 4
    lines = [json.loads(x) for x in (out_dir / "games.jsonl").read_text().splitlines()]
    assert all(x["game"] == "druids2004" and len(x["totals"]) == 2 for x in lines)
    assert json.loads((out_dir / "run.json").read_text())["config"]["game"] == "druids2004"


def test_rule_beats_random_on_duplicate_games() -> None:
    margins = []
    for seed in range(15):
        for seats in (["rule", "random"], ["random", "rule"]):
            result = play_local_game(seats, seed=seed, game=GAME)
            me = seats.index("rule")
            margins.append(result.totals[me] - result.totals[1 - me])
    mean = statistics.mean(margins)
    half = 1.96 * statistics.stdev(margins) / len(margins) ** 0.5
    assert mean - half > 0, (mean, half)
