"""Differential tests: the engine's ``replay`` against the independent reference in reference_rules.

Random games (3/4/5 players, variant on and off, moves uniform among the reference's legal moves),
complete or stopped mid-way, plus corrupted records (illegal moves, moves after the round ended,
incomplete non-last rounds, malformed hands and headers). Both sides must agree exactly.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from reference_rules import (
    DECK,
    DOMAINS,
    HAND_SIZE,
    MOVE_TOKENS,
    RefInputError,
    RefRound,
    ref_replay,
)

from druids_p2p.games.druids2017.ruleset import ReplayInputError, replay


def random_deal(rng: random.Random, players: int) -> list[list[str]]:
    size = HAND_SIZE[players]
    others = [c for c in DECK if c != "Gaia"]
    rng.shuffle(others)
    cards = [*others[: players * size - 1], "Gaia"]
    rng.shuffle(cards)
    hands = [cards[s * size : (s + 1) * size] for s in range(players)]
    if rng.random() < 0.5:
        hands = [sorted(h) for h in hands]
    return hands


def play_round(
    rng: random.Random,
    players: int,
    variant: bool,
    hands: list[list[str]],
    stop: int | None,
    specials_first: bool = False,
) -> list[str]:
    """Moves chosen uniformly among the reference's legal moves, up to ``stop`` moves.

    With ``specials_first`` a held Mistletoe/Sickle is played whenever no domain is led yet (and
    kept otherwise): tricks without domain cards, tricks led by a special, two-Sickle tricks.
    """
    rnd = RefRound(players, variant, hands)
    moves: list[str] = []
    while not rnd.over and (stop is None or len(moves) < stop):
        legal = rnd.legal()
        specials = [m for m in legal if m in ("Mistletoe", "Sickle")]
        others = [m for m in legal if m not in specials]
        if specials_first and rnd.led_domain() is None and specials:
            legal = specials
        elif specials_first and others:
            legal = others
        move = rng.choice(legal)
        # Exercise the accepted alias spelling now and then.
        if move.startswith("Gaia:") and not move.endswith("light") and rng.random() < 0.3:
            move += ":dark"
        assert rnd.play(move) is None
        moves.append(move)
    return moves


def random_game(rng: random.Random) -> dict[str, Any]:
    players = rng.choice([3, 4, 5])
    variant = rng.random() < 0.5
    n_rounds = 5 if rng.random() < 0.6 else rng.randint(1, 5)
    stop_last = rng.random() < 0.4
    specials_first = rng.random() < 0.2
    rounds = []
    for r in range(n_rounds):
        hands = random_deal(rng, players)
        last = r == n_rounds - 1
        stop = rng.randint(0, players * HAND_SIZE[players]) if last and stop_last else None
        rounds.append(
            {
                "hands": hands,
                "moves": play_round(rng, players, variant, hands, stop, specials_first),
            }
        )
    record: dict[str, Any] = {"players": players, "rounds": rounds}
    if variant or rng.random() < 0.7:
        record["variant"] = variant
    return record


def corrupt(rng: random.Random, record: dict[str, Any]) -> dict[str, Any] | str:
    """One random corruption of a valid record (or the record itself, unchanged)."""
    rec: dict[str, Any] = json.loads(json.dumps(record))
    players = rec["players"]
    rounds = rec["rounds"]
    r = rng.randrange(len(rounds))
    rnd = rounds[r]
    kind = rng.randrange(19)
    if kind == 0:  # an illegal (or at least arbitrary) move token somewhere
        if rnd["moves"]:
            i = rng.randrange(len(rnd["moves"]))
            rnd["moves"][i] = rng.choice([*MOVE_TOKENS, "Gaia:G:dark"])
            del rnd["moves"][i + 1 :]
            del rounds[r + 1 :]
    elif kind == 1:  # a move after the round ended
        rnd["moves"].append(rng.choice(MOVE_TOKENS))
    elif kind == 2:  # an incomplete round (malformed unless it is the last)
        if rnd["moves"]:
            del rnd["moves"][rng.randrange(len(rnd["moves"])) :]
    elif kind == 3:  # a hand one card short or long
        hand = rnd["hands"][rng.randrange(players)]
        if rng.random() < 0.5:
            hand.pop()
        else:
            hand.append(rng.choice(DECK))
    elif kind == 4:  # a duplicate card (possibly a third Mistletoe/Sickle, or a second Gaia)
        s, t = rng.sample(range(players), 2)
        rnd["hands"][s][rng.randrange(len(rnd["hands"][s]))] = rng.choice(rnd["hands"][t])
    elif kind == 5:  # an unknown card token
        hand = rnd["hands"][rng.randrange(players)]
        hand[rng.randrange(len(hand))] = rng.choice(
            ["G0", "G13", "g5", "Gaia:R", "X1", "", "Pile:G"]
        )
    elif kind == 6:  # Gaia replaced by an undealt card (no Gaia), when one exists
        dealt = [c for h in rnd["hands"] for c in h]
        spare = [c for c in DECK if c not in dealt]
        if spare:
            for h in rnd["hands"]:
                if "Gaia" in h:
                    h[h.index("Gaia")] = spare[0]
    elif kind == 7:  # wrong number of hands
        if rng.random() < 0.5:
            rnd["hands"].pop()
        else:
            rnd["hands"].append(list(rnd["hands"][0]))
    elif kind == 8:  # players out of range or of the wrong type
        rec["players"] = rng.choice([2, 6, 0, "4", 4.0, True, None])
    elif kind == 9:  # non-bool variant
        rec["variant"] = rng.choice([0, 1, "true", None, "false"])
    elif kind == 10:  # no rounds, or too many
        rec["rounds"] = [] if rng.random() < 0.5 else [*rounds, rounds[0]]
    elif kind == 11:  # bad JSON
        return json.dumps(rec)[: rng.randrange(1, 40)]
    elif kind == 12:  # an unknown move token
        rnd["moves"].insert(rng.randint(0, len(rnd["moves"])), rng.choice(["Gaia:X", "Pile", "R0"]))
    elif kind == 13:  # swap two moves (often illegal)
        if len(rnd["moves"]) >= 2:
            i, j = rng.sample(range(len(rnd["moves"])), 2)
            rnd["moves"][i], rnd["moves"][j] = rnd["moves"][j], rnd["moves"][i]
    elif kind == 14:  # move the light side into a game without the variant
        rec["variant"] = False
    elif kind == 15:  # wrong JSON types inside a round
        choice = rng.randrange(5)
        if choice == 0:
            rnd["hands"][0][0] = 5
        elif choice == 1:
            rnd["moves"] = "G1"
        elif choice == 2:
            rnd["moves"].append(None)
        elif choice == 3:
            rnd["hands"] = {"0": rnd["hands"][0]}
        else:
            rounds[r] = [rnd["hands"], rnd["moves"]]
    elif kind == 16:  # a record that is not an object, or lacks / adds keys
        return rng.choice(["[]", "null", "4", '"x"', json.dumps({"players": players}), "[" * 5000])
    elif kind == 17 and len(rounds) >= 2:  # a non-last round cut short after its first trick
        rounds[0]["moves"] = rounds[0]["moves"][:players]
    # kind 18: unchanged
    return rec


def compare(text: str) -> tuple[int, dict[str, Any]] | None:
    """Run both sides; assert they agree; return the reference's outcome (None if malformed)."""
    try:
        expected = ref_replay(text)
    except RefInputError as exc:
        with pytest.raises(ReplayInputError):
            got = replay(text)
            pytest.fail(f"engine accepted malformed input ({exc}): {text}\n-> {got}")
        return None
    try:
        got = replay(text)
    except ReplayInputError as exc:
        pytest.fail(f"engine rejected valid input ({exc}): {text}\n-> reference {expected}")
    code, result = got
    ecode, eresult = expected
    assert code == ecode, f"{text}\nengine {got}\nreference {expected}"
    if ecode == 1:
        assert {k: result.get(k) for k in ("ok", "round", "move")} == {
            k: eresult[k] for k in ("ok", "round", "move")
        }, f"{text}\nengine {got}\nreference {expected}"
        assert isinstance(result.get("error"), str) and result["error"]
        return expected
    norm = dict(result)
    if norm.get("legal") is not None:
        assert len(norm["legal"]) == len(set(norm["legal"])), f"duplicate legal moves: {norm}"
        norm["legal"] = sorted(norm["legal"])
    assert norm == eresult, f"{text}\nengine {result}\nreference {eresult}"
    # Pile keys in the order G, Y, R, B, V (dict equality ignores order).
    for rnd, eround in zip(result["rounds"], eresult["rounds"], strict=True):
        assert [list(p) for p in rnd["piles"]] == [list(p) for p in eround["piles"]]
    return expected


def run_games(seed: int, count: int) -> dict[str, int]:
    rng = random.Random(seed)
    stats = {"ok": 0, "illegal": 0, "malformed": 0, "five_domains": 0, "pile_choice": 0}
    for _ in range(count):
        record = random_game(rng)
        text = json.dumps(record)
        out = compare(text)
        assert out is not None and out[0] == 0, "a valid generated game must replay cleanly"
        stats["ok"] += 1
        for rnd in record["rounds"]:
            stats["pile_choice"] += sum(m.startswith("Pile:") for m in rnd["moves"])
        stats["five_domains"] += sum(r["ended_by"] == "five_domains" for r in out[1]["rounds"])
        for _ in range(2):
            bad = corrupt(rng, record)
            out = compare(bad if isinstance(bad, str) else json.dumps(bad))
            stats["malformed" if out is None else "illegal" if out[0] == 1 else "ok"] += 1
    return stats


def test_reference_diff_random_games() -> None:
    stats = run_games(seed=20240601, count=600)
    # The generator must actually reach the interesting situations.
    assert stats["illegal"] > 20 and stats["malformed"] > 100
    assert stats["five_domains"] > 20 and stats["pile_choice"] > 5


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_reference_diff_many_games(seed: int) -> None:
    """1,200 more random games and 2,400 corruptions of them, on top of the 600 above (each
    game and its two corruptions about 20 ms of CPU, both sides): 4,000 more were more draws
    of the same generator, 80 s of the suite for no case of a kind these do not reach."""
    run_games(seed=1000 + seed, count=300)


def test_reference_diff_specials_heavy() -> None:
    """Specials played as soon as possible, few domains in play: tricks without domain cards,
    tricks led by a special, two-Sickle tricks, Sickles when the winner has no piles."""
    rng = random.Random(7)
    for _ in range(300):
        players = rng.choice([3, 4, 5])
        variant = rng.random() < 0.5
        size = HAND_SIZE[players]
        specials = ["Mistletoe", "Mistletoe", "Sickle", "Sickle"]
        domains = rng.sample(DOMAINS, rng.randint(1, 5))
        pool = [c for c in DECK if c[0] in domains and c not in ("Gaia", *specials)]
        rest = [c for c in DECK if c not in pool and c != "Gaia" and c not in specials]
        rng.shuffle(pool)
        rng.shuffle(rest)
        cards = ["Gaia", *specials, *pool, *rest][: players * size]
        rng.shuffle(cards)
        hands = [cards[s * size : (s + 1) * size] for s in range(players)]
        moves = play_round(rng, players, variant, hands, None, specials_first=True)
        record = {
            "players": players,
            "variant": variant,
            "rounds": [{"hands": hands, "moves": moves}],
        }
        compare(json.dumps(record))
