"""Which bots play which deal in which seats: the whole schedule follows from one master seed.

A tournament is a list of *deals*. Each deal is played once per rotation of its lineup through
the seats (``players`` games, indices ``deal * players`` to ``deal * players + players - 1``), so
every bot of the lineup meets the same cards from every seat: most of the luck of the deal cancels
out (duplicate play). ``--games N`` counts games and is rounded up to whole deals.

The game seed of a deal is a hash of the master seed and the deal index, never ``master + deal``:
adjacent integer seeds would make neighbouring tournaments share almost all their deals. The
lineups come from the same master seed, so the plan — and with it every result — is identical
whatever number of worker processes plays it.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

SEED_DOMAIN = "druids-tournament/v1"


def deal_seed(master: int, deal: int) -> int:
    """The game seed of deal ``deal``: 63 bits of SHA-256(domain ‖ master ‖ deal)."""
    digest = hashlib.sha256(f"{SEED_DOMAIN}/{master}/{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _lineup_rng(master: int, deal: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.seed: independent of PYTHONHASHSEED.
    return random.Random(f"{SEED_DOMAIN}/lineup/{master}/{deal}")


@dataclass(frozen=True, slots=True)
class PlannedGame:
    """One game of the plan: enough to replay it with ``play_local_game(seating, ..., seed)``."""

    index: int
    deal: int
    seed: int
    seating: tuple[str, ...]
    """Bot name per seat."""


def deals_for(games: int, players: int) -> int:
    """Whole deals needed for at least ``games`` games (one game per rotation)."""
    return max(1, -(-games // players))


def rotations(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """Seat ``s`` of rotation ``r`` gets ``lineup[(s + r) % n]``: each member sits in every seat."""
    n = len(lineup)
    return [tuple(lineup[(s + r) % n] for s in range(n)) for r in range(n)]


def _grouped(counts: dict[str, int], order: Sequence[str]) -> list[str]:
    """Copies of a bot side by side: a lineup with one run per bot has ``n`` distinct rotations."""
    return [name for name in order for _ in range(counts.get(name, 0))]


def plan_tournament(
    bots: Sequence[str], players: int, games: int, master: int
) -> list[PlannedGame]:
    """Every game of a round robin between ``bots`` at ``players`` seats.

    One bot: it plays itself, one game per deal. More bots than seats: each deal seats the
    ``players`` bots that have played the fewest deals so far, ties broken by a draw from the
    master seed, so appearances stay within one of each other. Fewer bots than seats: every bot
    plays every deal and the extra seats go, the same balanced way, to second copies.
    """
    if len(set(bots)) != len(bots) or not bots:
        raise ValueError("a tournament needs bots, each listed once")
    per_deal = 1 if len(bots) == 1 else players  # a bot alone: its rotations are all one game
    plays = dict.fromkeys(bots, 0)
    extra = dict.fromkeys(bots, 0)
    specs: list[PlannedGame] = []
    for deal in range(deals_for(games, per_deal)):
        rng = _lineup_rng(master, deal)
        order = list(bots)
        rng.shuffle(order)
        counts: dict[str, int]
        if len(bots) >= players:
            chosen = sorted(order, key=lambda b: plays[b])[:players]
            counts = dict.fromkeys(chosen, 1)
        else:
            counts = dict.fromkeys(bots, 1)
            for _ in range(players - len(bots)):
                pick = min(order, key=lambda b: extra[b])
                extra[pick] += 1
                counts[pick] += 1
        for name in counts:
            plays[name] += 1
        lineup = _grouped(counts, order)
        seed = deal_seed(master, deal)
        for r, seating in enumerate(rotations(lineup)[:per_deal]):
            specs.append(PlannedGame(deal * per_deal + r, deal, seed, seating))
    return specs


def plan_challenge(
    challenger: str, baseline: str, players: int, games: int, master: int
) -> list[PlannedGame]:
    """``challenger`` against ``players - 1`` copies of ``baseline``, in every seat of a deal."""
    if challenger == baseline:
        raise ValueError("a challenge needs two different bots")
    lineup = [challenger] + [baseline] * (players - 1)
    specs: list[PlannedGame] = []
    for deal in range(deals_for(games, players)):
        seed = deal_seed(master, deal)
        for r, seating in enumerate(rotations(lineup)):
            specs.append(PlannedGame(deal * players + r, deal, seed, seating))
    return specs


def plan_lineups(lineups: Sequence[Sequence[str]], games: int, master: int) -> list[PlannedGame]:
    """Fixed lineups (a bot may repeat), each rotated through the seats on every deal.

    One lineup is ``--bots pimc,rule,rule,rule``; several are a gauntlet (the same bot first,
    then each opponent set). Deal ``d`` plays lineup ``k`` in rotation ``r`` as game
    ``(d·K + k)·P + r``: every lineup meets the same cards, so a gauntlet's opponents are compared
    on the very same deals, and any prefix of whole deals is balanced between them.
    """
    if not lineups or any(len(lu) != len(lineups[0]) for lu in lineups) or len(lineups[0]) < 2:
        raise ValueError("lineups need at least two seats each, all of the same length")
    players = len(lineups[0])
    per_deal = len(lineups) * players
    specs: list[PlannedGame] = []
    for d in range(deals_for(games, per_deal)):
        seed = deal_seed(master, d)
        for k, lineup in enumerate(lineups):
            for r, seating in enumerate(rotations(lineup)):
                specs.append(PlannedGame((d * len(lineups) + k) * players + r, d, seed, seating))
    return specs
