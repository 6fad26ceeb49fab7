"""One small example game per ruling, fed to ``replay()`` with its exact expected outcome.

Deals are hand-crafted: ``deal`` gives the listed cards to their seats and fills every hand to full
size with domain cards of the domains that seat must not hold.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest
from reference_rules import DOMAIN_CARDS, HAND_SIZE, RefRound

from druids_p2p.games.druids2017.ruleset import ReplayInputError, replay

# Filler order: low values first, the domains interleaved (G1, Y1, R1, B1, V1, G2, ...).
FILLER = sorted(DOMAIN_CARDS, key=lambda c: (int(c[1:]), "GYRBV".index(c[0])))


def deal(
    players: int, fixed: dict[int, list[str]], avoid: dict[int, str] | None = None
) -> list[list[str]]:
    """Full-size hands: ``fixed[seat]`` plus filler avoiding the domains in ``avoid[seat]``."""
    avoid = avoid or {}
    size = HAND_SIZE[players]
    hands = [list(fixed.get(s, [])) for s in range(players)]
    used = {c for h in hands for c in h}
    pool = [c for c in FILLER if c not in used]
    for seat in sorted(range(players), key=lambda s: -len(avoid.get(s, ""))):
        for card in list(pool):
            if len(hands[seat]) >= size:
                break
            if card[0] not in avoid.get(seat, ""):
                hands[seat].append(card)
                pool.remove(card)
        assert len(hands[seat]) == size, f"cannot fill seat {seat}"
    return hands


def run(
    players: int, rounds: list[tuple[list[list[str]], list[str]]], variant: bool | None = None
) -> tuple[int, dict[str, Any]]:
    record: dict[str, Any] = {
        "players": players,
        "rounds": [{"hands": h, "moves": m} for h, m in rounds],
    }
    if variant is not None:
        record["variant"] = variant
    return replay(json.dumps(record))


def ok(result: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    code, out = result
    assert code == 0, out
    assert out["ok"] is True
    return out


def illegal(result: tuple[int, dict[str, Any]], rnd: int, move: int) -> None:
    code, out = result
    assert code == 1, out
    assert out["ok"] is False and out["round"] == rnd and out["move"] == move
    assert isinstance(out["error"], str) and out["error"]
    assert set(out) == {"ok", "round", "move", "error"}


def legal_of(hand: list[str], played: list[str], led: str | None) -> list[str]:
    rest = list(hand)
    for c in played:
        rest.remove(c)
    if led and any(c[0] == led and c in DOMAIN_CARDS for c in rest):
        rest = [
            c for c in rest if (c in DOMAIN_CARDS and c[0] == led) or c in ("Mistletoe", "Sickle")
        ]
    return sorted(set(rest))


# ---- playing a trick -----------------------------------------------------------------------


def test_round_starts_with_gaia_lead() -> None:
    hands = deal(3, {1: ["Gaia"], 2: ["Mistletoe", "Mistletoe"]})
    out = ok(run(3, [(hands, [])]))
    assert out["to_move"] == 1
    assert sorted(out["legal"]) == ["Gaia:B", "Gaia:G", "Gaia:R", "Gaia:V", "Gaia:Y"]
    out = ok(run(3, [(hands, [])], variant=True))
    assert sorted(out["legal"]) == sorted(
        [f"Gaia:{d}" for d in "GYRBV"] + [f"Gaia:{d}:light" for d in "GYRBV"]
    )
    assert out["rounds"] == [{"ended_by": None, "scores": None, "piles": [{}, {}, {}]}]
    assert out["totals"] == [0, 0, 0] and out["finished"] is False and out["winners"] is None
    # Gaia counts as the led domain: seat 2 must follow red; two Mistletoes listed once.
    out = ok(run(3, [(hands, ["Gaia:R"])]))
    assert out["to_move"] == 2
    assert sorted(out["legal"]) == legal_of(hands[2], [], "R")
    assert out["legal"].count("Mistletoe") == 1


def test_gaia_dark_spelling_is_accepted() -> None:
    hands = deal(3, {0: ["Gaia"], 1: ["R5"], 2: ["R2"]})
    a = ok(run(3, [(hands, ["Gaia:R:dark", "R5", "R2"])]))
    b = ok(run(3, [(hands, ["Gaia:R", "R5", "R2"])]))
    assert a == b
    assert a["rounds"][0]["piles"] == [{}, {"R": ["R5", "R2"]}, {}]


def test_gaia_wins_when_nobody_follows() -> None:
    hands = deal(3, {0: ["Gaia"], 1: ["R5"], 2: ["Y12"]}, avoid={1: "B", 2: "B"})
    out = ok(run(3, [(hands, ["Gaia:B", "R5", "Y12"])]))
    assert out["rounds"][0]["piles"] == [{"Y": ["Y12"], "R": ["R5"]}, {}, {}]
    assert out["to_move"] == 0
    assert sorted(out["legal"]) == legal_of(hands[0], ["Gaia"], None)


def test_gaia_loses_to_any_card_of_its_domain() -> None:
    hands = deal(3, {0: ["Gaia"], 1: ["V12"], 2: ["B1"]}, avoid={1: "B"})
    out = ok(run(3, [(hands, ["Gaia:B", "V12", "B1"])]))
    assert out["rounds"][0]["piles"] == [{}, {}, {"B": ["B1"], "V": ["V12"]}]
    assert out["to_move"] == 2


def test_mistletoe_may_replace_following_and_has_no_effect() -> None:
    hands = deal(3, {0: ["Gaia", "Mistletoe", "Y1"], 1: ["R5", "Y3"], 2: ["R9", "Y7"]})
    moves = ["Gaia:R", "R5", "R9", "Y7"]
    out = ok(run(3, [(hands, moves)]))
    # Seat 0 holds yellow: it must follow, but Mistletoe is allowed instead.
    assert out["to_move"] == 0
    assert "Mistletoe" in out["legal"] and "Y1" in out["legal"]
    assert all(m[0] == "Y" or m in ("Mistletoe", "Sickle") for m in out["legal"])
    out = ok(run(3, [(hands, [*moves, "Mistletoe", "Y3"])]))
    assert out["rounds"][0]["piles"] == [{}, {}, {"Y": ["Y7", "Y3"], "R": ["R9", "R5"]}]
    assert list(out["rounds"][0]["piles"][2]) == ["Y", "R"]  # keys in the order G, Y, R, B, V
    assert out["to_move"] == 2


def test_trick_led_by_mistletoe_led_domain_from_first_domain_card() -> None:
    hands = deal(3, {0: ["Gaia", "G2", "G11"], 1: ["R5", "Mistletoe"], 2: ["R2", "G4"]})
    moves = ["Gaia:R", "R5", "R2", "Mistletoe"]
    out = ok(run(3, [(hands, moves)]))
    assert out["to_move"] == 2
    assert sorted(out["legal"]) == legal_of(hands[2], ["R2"], None)  # no domain led yet: anything
    out = ok(run(3, [(hands, [*moves, "G4"])]))
    assert out["to_move"] == 0
    assert sorted(out["legal"]) == legal_of(hands[0], ["Gaia"], "G")  # green is led now
    out = ok(run(3, [(hands, [*moves, "G4", "G2"])]))
    assert out["rounds"][0]["piles"] == [{}, {"R": ["R5", "R2"]}, {"G": ["G4", "G2"]}]
    assert out["to_move"] == 2
    illegal(run(3, [(hands, [*moves, "G4", hands[0][-1]])]), 0, 5)  # filler, not green


def test_trick_led_by_sickle_led_domain_from_first_domain_card() -> None:
    hands = deal(3, {0: ["Gaia", "Y8"], 1: ["R5", "Sickle"], 2: ["R2", "Y4", "B3"]}, avoid={1: "Y"})
    moves = ["Gaia:R", "R5", "R2", "Sickle", "Y4", "Y8"]
    out = ok(run(3, [(hands, moves)]))
    # Seat 0 wins with Y8 and takes Y8, Y4; the Sickle removes its only pile.
    assert out["rounds"][0]["piles"] == [{}, {"R": ["R5", "R2"]}, {}]
    assert out["to_move"] == 0


def test_trick_of_only_specials_is_won_by_its_leader() -> None:
    hands = deal(3, {0: ["Gaia", "Mistletoe"], 1: ["R5", "Mistletoe"], 2: ["R2", "Sickle", "G12"]})
    moves = ["Gaia:R", "R5", "R2", "Mistletoe", "Sickle", "Mistletoe"]
    out = ok(run(3, [(hands, moves)]))
    # Seat 1 led and wins; its Sickle removes seat 1's only pile.
    assert out["rounds"][0]["piles"] == [{}, {}, {}]
    assert out["to_move"] == 1


def test_sickle_with_no_piles_has_no_effect() -> None:
    hands = deal(3, {0: ["Gaia"], 1: ["Sickle"], 2: ["Mistletoe"]})
    out = ok(run(3, [(hands, ["Gaia:R", "Sickle", "Mistletoe"])]))
    assert out["rounds"][0]["piles"] == [{}, {}, {}]
    assert out["to_move"] == 0
    assert sorted(out["legal"]) == legal_of(hands[0], ["Gaia"], None)


# ---- taking a trick ------------------------------------------------------------------------


def test_dark_side_piles_lowest_on_top_descending_beneath() -> None:
    hands = deal(4, {0: ["Gaia"], 1: ["R2"], 2: ["R9"], 3: ["R5"]})
    out = ok(run(4, [(hands, ["Gaia:R", "R2", "R9", "R5"])]))
    assert out["rounds"][0]["piles"] == [{}, {}, {"R": ["R9", "R5", "R2"]}, {}]
    assert out["to_move"] == 2


def test_dark_side_stacking_on_existing_pile() -> None:
    hands = deal(3, {0: ["Gaia", "R1"], 1: ["R5", "Mistletoe"], 2: ["R9", "R3"]})
    moves = ["Gaia:R", "R5", "R9", "R3", "R1", "Mistletoe"]
    out = ok(run(3, [(hands, moves)]))
    assert out["rounds"][0]["piles"] == [{}, {}, {"R": ["R9", "R5", "R3", "R1"]}]
    assert out["to_move"] == 2


def test_light_side_highest_on_top_ascending_beneath() -> None:
    hands = deal(3, {0: ["Gaia", "R1"], 1: ["R5", "Mistletoe"], 2: ["R9", "R3"]})
    moves = ["Gaia:R:light", "R5", "R9", "R3", "R1", "Mistletoe"]
    out = ok(run(3, [(hands, moves)], variant=True))
    assert out["rounds"][0]["piles"] == [{}, {}, {"R": ["R5", "R9", "R1", "R3"]}]
    # The same game on the dark side, in the variant, spelled both ways.
    dark = ok(run(3, [(hands, ["Gaia:R", *moves[1:]])], variant=True))
    assert dark["rounds"][0]["piles"] == [{}, {}, {"R": ["R9", "R5", "R3", "R1"]}]
    assert dark == ok(run(3, [(hands, ["Gaia:R:dark", *moves[1:]])], variant=True))


def test_sickle_removes_unique_highest_pile() -> None:
    hands = deal(3, {0: ["Gaia", "B1"], 1: ["R5", "B2"], 2: ["Y9", "Sickle"]}, avoid={2: "RB"})
    out = ok(run(3, [(hands, ["Gaia:R", "R5", "Y9", "B2", "Sickle", "B1"])]))
    # Seat 1 had R5, Y9 and takes B2, B1 (B1 on top); the Sickle removes Y (top 9).
    assert out["rounds"][0]["piles"] == [{}, {"R": ["R5"], "B": ["B2", "B1"]}, {}]
    assert out["to_move"] == 1
    assert sorted(out["legal"]) == legal_of(hands[1], ["R5", "B2"], None)


def test_sickle_tie_needs_pile_choice() -> None:
    hands = deal(3, {0: ["Gaia", "B1"], 1: ["R7", "B2"], 2: ["Y7", "Sickle"]}, avoid={2: "RB"})
    moves = ["Gaia:R", "R7", "Y7", "B2", "Sickle", "B1"]
    out = ok(run(3, [(hands, moves)]))
    assert out["to_move"] == 1
    assert sorted(out["legal"]) == ["Pile:R", "Pile:Y"]
    assert out["rounds"][0]["piles"][1] == {"Y": ["Y7"], "R": ["R7"], "B": ["B2", "B1"]}
    assert out["rounds"][0]["ended_by"] is None
    out = ok(run(3, [(hands, [*moves, "Pile:Y"])]))
    assert out["rounds"][0]["piles"] == [{}, {"R": ["R7"], "B": ["B2", "B1"]}, {}]
    assert out["to_move"] == 1
    assert sorted(out["legal"]) == legal_of(hands[1], ["R7", "B2"], None)
    illegal(run(3, [(hands, [*moves, "Pile:B"])]), 0, 6)  # not among the tied piles
    illegal(run(3, [(hands, [*moves, hands[1][-1]])]), 0, 6)  # a card while a choice is due


def test_two_sickles_in_one_trick_remove_one_after_another() -> None:
    hands = deal(3, {0: ["Gaia", "Sickle"], 1: ["R7", "B6"], 2: ["Y5", "Sickle"]}, avoid={2: "RB"})
    out = ok(run(3, [(hands, ["Gaia:R", "R7", "Y5", "B6", "Sickle", "Sickle"])]))
    # Seat 1: R7, Y5, B6. First Sickle removes R (7), the second B (6).
    assert out["rounds"][0]["piles"] == [{}, {"Y": ["Y5"]}, {}]
    assert out["to_move"] == 1


def test_two_sickles_with_two_successive_choices() -> None:
    hands = deal(3, {0: ["Gaia", "Sickle"], 1: ["R7", "B7"], 2: ["Y7", "Sickle"]}, avoid={2: "RB"})
    moves = ["Gaia:R", "R7", "Y7", "B7", "Sickle", "Sickle"]
    out = ok(run(3, [(hands, moves)]))
    assert out["to_move"] == 1 and sorted(out["legal"]) == ["Pile:B", "Pile:R", "Pile:Y"]
    out = ok(run(3, [(hands, [*moves, "Pile:Y"])]))
    assert out["to_move"] == 1 and sorted(out["legal"]) == ["Pile:B", "Pile:R"]
    out = ok(run(3, [(hands, [*moves, "Pile:Y", "Pile:B"])]))
    assert out["rounds"][0]["piles"] == [{}, {"R": ["R7"]}, {}]
    assert out["to_move"] == 1 and "Pile:R" not in out["legal"]
    illegal(run(3, [(hands, [*moves, "Pile:Y", "Pile:Y"])]), 0, 7)


def test_five_domains_end_the_round_sickle_ignored() -> None:
    hands = deal(
        4,
        {
            0: ["Gaia", "B2", "B3"],
            1: ["G5", "B1", "V9"],
            2: ["Y3", "B12", "V1"],
            3: ["R3", "Y5", "Sickle"],
        },
        avoid={0: "V", 2: "G", 3: "GBV"},
    )
    moves = ["Gaia:G", "G5", "Y3", "R3"]  # seat 1 wins: G5, Y3, R3
    moves += ["B1", "B12", "Y5", "B2"]  # seat 2 wins: B12, B2, B1 and Y5
    moves += ["V1", "Sickle", "B3", "V9"]  # seat 1 wins V9, V1, B3: five domains
    out = ok(run(4, [(hands, moves)]))
    rnd = out["rounds"][0]
    assert rnd["ended_by"] == "five_domains"
    assert rnd["scores"] == [0, -3, 1 + 5, 0]
    assert rnd["piles"] == [
        {},
        {"G": ["G5"], "Y": ["Y3"], "R": ["R3"], "B": ["B3"], "V": ["V9", "V1"]},
        {"Y": ["Y5"], "B": ["B12", "B2", "B1"]},
        {},
    ]
    assert out["totals"] == [0, -3, 6, 0]
    assert out["finished"] is False and out["winners"] is None
    assert out["to_move"] is None and out["legal"] is None
    with pytest.raises(ReplayInputError):  # nothing may follow
        run(4, [(hands, [*moves, hands[0][-1]])])


# ---- illegal moves -------------------------------------------------------------------------


def test_illegal_not_following_while_holding_led_domain() -> None:
    hands = deal(3, {0: ["Gaia"], 1: ["R5", "Y5"]})
    illegal(run(3, [(hands, ["Gaia:R", "Y5"])]), 0, 1)
    ok(run(3, [(hands, ["Gaia:R", "R5"])]))


def test_illegal_light_gaia_without_variant() -> None:
    hands = deal(3, {0: ["Gaia"]})
    illegal(run(3, [(hands, ["Gaia:R:light"])]), 0, 0)
    illegal(run(3, [(hands, ["Gaia:R:light"])], variant=False), 0, 0)
    ok(run(3, [(hands, ["Gaia:R:light"])], variant=True))


def test_illegal_pile_without_pending_choice() -> None:
    hands = deal(3, {0: ["Gaia"], 1: ["R5"], 2: ["R2"]})
    illegal(run(3, [(hands, ["Gaia:R", "R5", "R2", "Pile:R"])]), 0, 3)
    illegal(run(3, [(hands, ["Pile:R"])]), 0, 0)


def test_illegal_other_cases() -> None:
    hands = deal(3, {0: ["Gaia", "G1"], 1: ["R5"], 2: ["R2"]})
    illegal(run(3, [(hands, ["G1"])]), 0, 0)  # Gaia must be led first
    illegal(run(3, [(hands, ["Gaia"])]), 0, 0)  # Gaia must name a domain
    illegal(run(3, [(hands, ["Gaia:R", "R2"])]), 0, 1)  # not in the mover's hand
    illegal(run(3, [(hands, ["Gaia:R", "R5", "R2", "Gaia:G"])]), 0, 3)  # Gaia already played
    # An illegal move in a later round reports that round and the move index within it.
    later = deal(3, {0: ["Gaia"], 1: ["R5"], 2: ["R2", "Y9"]})
    illegal(run(3, [(hands, complete_round(3, hands)), (later, ["Gaia:R", "R5", "Y9"])]), 1, 2)


# ---- scoring and game end ------------------------------------------------------------------


def complete_round(players: int, hands: list[list[str]], variant: bool = False) -> list[str]:
    """Moves of a complete round: always the first legal move (in the reference's order)."""
    rnd = RefRound(players, variant, hands)
    moves = []
    while not rnd.over:
        move = rnd.legal()[0]
        assert rnd.play(move) is None
        moves.append(move)
    return moves


def quick_round(gaia: int) -> tuple[list[list[str]], list[str]]:
    """3 players, Gaia at ``gaia``; seat gaia+1 gets five domains in two tricks (scores -3)."""
    a, b, c = gaia, (gaia + 1) % 3, (gaia + 2) % 3
    hands = deal(3, {a: ["Gaia", "V1"], b: ["G5", "R12"], c: ["Y3", "B1"]}, avoid={a: "R", c: "GR"})
    return hands, ["Gaia:G", "G5", "Y3", "R12", "B1", "V1"]


def test_round_ending_by_five_domains_scores() -> None:
    hands, moves = quick_round(0)
    out = ok(run(3, [(hands, moves)]))
    assert out["rounds"][0]["ended_by"] == "five_domains"
    assert out["rounds"][0]["scores"] == [0, -3, 0]


def test_totals_and_single_winner_over_five_rounds() -> None:
    rounds = [quick_round(g) for g in (0, 1, 2, 0, 1)]  # -3 for seats 1, 2, 0, 1, 2
    out = ok(run(3, rounds))
    assert [r["scores"] for r in out["rounds"]] == [
        [0, -3, 0],
        [0, 0, -3],
        [-3, 0, 0],
        [0, -3, 0],
        [0, 0, -3],
    ]
    assert out["totals"] == [-3, -6, -6]
    assert out["finished"] is True and out["winners"] == [0]
    assert out["to_move"] is None and out["legal"] is None


def test_totals_and_shared_winners_over_five_rounds() -> None:
    rounds = [quick_round(g) for g in (0, 1, 2, 0, 0)]  # -3 for seats 1, 2, 0, 1, 1
    out = ok(run(3, rounds))
    assert out["totals"] == [-3, -9, -3]
    assert out["finished"] is True and out["winners"] == [0, 2]


def test_partial_game_totals_count_ended_rounds_only() -> None:
    rounds = [quick_round(0), quick_round(1)]
    hands, moves = quick_round(2)
    out = ok(run(3, [*rounds, (hands, moves[:4])]))
    assert out["totals"] == [0, -3, -3]
    assert out["rounds"][2]["scores"] is None and out["rounds"][2]["ended_by"] is None
    assert out["finished"] is False and out["winners"] is None
    assert out["to_move"] == 1  # seat 0 (Gaia's left) won trick 1 and led R12; seat 1 follows


def test_hands_empty_round_scores_top_cards() -> None:
    rng = random.Random(5)
    while True:  # a seeded search for a round that runs until the hands are empty
        hands = random_hands(rng, 4)
        rnd = RefRound(4, False, hands)
        moves = []
        while not rnd.over:
            move = rng.choice(rnd.legal())
            rnd.play(move)
            moves.append(move)
        if rnd.ended_by == "hands_empty":
            break
    out = ok(run(4, [(hands, moves)]))
    rnd_out = out["rounds"][0]
    assert rnd_out["ended_by"] == "hands_empty"
    tops = [sum(int(p[-1][1:]) for p in piles.values()) for piles in rnd_out["piles"]]
    assert rnd_out["scores"] == tops
    assert out["totals"] == tops and out["to_move"] is None and out["legal"] is None


def test_round_ends_only_after_last_tricks_sickle_choice() -> None:
    rng = random.Random(3)
    while True:  # a seeded search for a last trick that needs a Sickle pile choice
        hands = [sorted(h) for h in random_hands(rng, 3)]
        rnd = RefRound(3, False, hands)
        moves = []
        while not rnd.over and not (rnd.pending_winner is not None and not any(rnd.hands)):
            move = rng.choice(rnd.legal())
            rnd.play(move)
            moves.append(move)
        if not rnd.over:
            break
    out = ok(run(3, [(hands, moves)]))
    assert out["rounds"][0]["ended_by"] is None and out["rounds"][0]["scores"] is None
    assert out["to_move"] == rnd.pending_winner
    assert all(m.startswith("Pile:") for m in out["legal"]) and len(out["legal"]) >= 2
    out = ok(run(3, [(hands, [*moves, out["legal"][0]])]))
    assert out["rounds"][0]["ended_by"] == "hands_empty"
    assert out["to_move"] is None and out["legal"] is None


def random_hands(rng: random.Random, players: int) -> list[list[str]]:
    from reference_rules import DECK

    size = HAND_SIZE[players]
    others = [c for c in DECK if c != "Gaia"]
    rng.shuffle(others)
    cards = [*others[: players * size - 1], "Gaia"]
    rng.shuffle(cards)
    return [cards[s * size : (s + 1) * size] for s in range(players)]


# ---- malformed input (exit 2) --------------------------------------------------------------


def _good() -> dict[str, Any]:
    hands = deal(3, {0: ["Gaia", "Mistletoe"], 1: ["R5", "Mistletoe"], 2: ["R2"]})
    return {"players": 3, "variant": False, "rounds": [{"hands": hands, "moves": ["Gaia:R"]}]}


def _mutations() -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = [("bad JSON", '{"players": 3,'), ("not an object", "[1]")]

    def mut(name: str, fn: Any) -> None:
        rec = _good()
        fn(rec)
        cases.append((name, json.dumps(rec)))

    def hand(rec: dict[str, Any]) -> list[list[str]]:
        hands: list[list[str]] = rec["rounds"][0]["hands"]
        return hands

    mut("unknown card token", lambda r: hand(r)[2].__setitem__(1, "R13"))
    mut("unknown move token", lambda r: r["rounds"][0]["moves"].append("R0"))
    mut("hand too short", lambda r: hand(r)[1].pop())
    mut("hand too long", lambda r: hand(r)[1].append("Sickle"))
    mut("duplicate card", lambda r: hand(r)[2].__setitem__(1, "R5"))
    mut("third Mistletoe", lambda r: hand(r)[2].__setitem__(1, "Mistletoe"))
    mut("two Gaias", lambda r: hand(r)[2].__setitem__(1, "Gaia"))
    mut("no Gaia", lambda r: hand(r)[0].__setitem__(hand(r)[0].index("Gaia"), "Sickle"))
    mut("too few hands", lambda r: hand(r).pop())
    mut("too many hands", lambda r: hand(r).append([]))
    mut("players 2", lambda r: r.__setitem__("players", 2))
    mut("players 6", lambda r: r.__setitem__("players", 6))
    mut("players string", lambda r: r.__setitem__("players", "3"))
    mut("variant int", lambda r: r.__setitem__("variant", 1))
    mut("variant string", lambda r: r.__setitem__("variant", "false"))
    mut("zero rounds", lambda r: r.__setitem__("rounds", []))
    mut("six rounds", lambda r: r.__setitem__("rounds", r["rounds"] * 6))
    mut("incomplete non-last round", lambda r: r.__setitem__("rounds", r["rounds"] * 2))
    cases.append(
        (
            "move after the round ended",
            json.dumps(
                {
                    "players": 3,
                    "rounds": [{"hands": quick_round(0)[0], "moves": [*quick_round(0)[1], "R1"]}],
                }
            ),
        )
    )
    return cases


@pytest.mark.parametrize(("name", "text"), _mutations(), ids=[n for n, _ in _mutations()])
def test_malformed_input_raises(name: str, text: str) -> None:
    with pytest.raises(ReplayInputError):
        replay(text)


def test_good_record_for_malformed_cases_is_valid() -> None:
    ok(replay(json.dumps(_good())))


# ---- the CLI -------------------------------------------------------------------------------


def _cli(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "druids_p2p", "replay", *args],
        input=data,
        capture_output=True,
        timeout=60,
    )


def _assert_one_line_error(proc: subprocess.CompletedProcess[bytes]) -> None:
    assert proc.returncode == 2, proc
    err = proc.stderr.decode()
    assert err.strip() and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert proc.stdout == b""


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (json.dumps(_good()), 0),
        (json.dumps({**_good(), "rounds": [{**_good()["rounds"][0], "moves": ["G1"]}]}), 1),
        ('{"players": 7}', 2),
        ("not json", 2),
    ],
)
def test_cli_replay_exit_codes(text: str, code: int) -> None:
    proc = _cli(["-"], text.encode())
    if code == 2:
        _assert_one_line_error(proc)
    else:
        assert proc.returncode == code, proc.stderr
        out = json.loads(proc.stdout)
        assert out["ok"] is (code == 0)
        assert out == replay(text)[1]


def test_cli_replay_bad_bytes_and_missing_file(tmp_path: Any) -> None:
    _assert_one_line_error(_cli(["-"], b"\xff\xfe{"))
    _assert_one_line_error(_cli([str(tmp_path / "missing.json")], b""))
