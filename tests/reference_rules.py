"""An independent, deliberately simple reference implementation of the Druids rulings.

Written from the binding rulings only (not from the engine's code), for differential testing of
``druids_p2p.games.druids2017.ruleset.replay``. Cards and moves are plain token strings, hands
are lists,piles are lists (bottom ... top). Slow and obvious on purpose.
"""

from __future__ import annotations

import json
from typing import Any

DOMAINS = ["G", "Y", "R", "B", "V"]
VALUES = list(range(1, 13))
HAND_SIZE = {3: 15, 4: 14, 5: 13}
ROUNDS = 5

DOMAIN_CARDS = [f"{d}{v}" for d in DOMAINS for v in VALUES]
_DOMAIN_CARD_SET = frozenset(DOMAIN_CARDS)  # the same cards, for membership tests in O(1)
# The 65 physical cards, as tokens (the two Mistletoes and two Sickles share a token).
DECK = [*DOMAIN_CARDS, "Gaia", "Mistletoe", "Mistletoe", "Sickle", "Sickle"]
CARD_TOKENS = set(DECK)
COPIES = {token: DECK.count(token) for token in CARD_TOKENS}

# Every move token of the notation, canonical spelling first; the aliases map to canonical ones.
MOVE_TOKENS = (
    DOMAIN_CARDS
    + [f"Gaia:{d}" for d in DOMAINS]
    + [f"Gaia:{d}:light" for d in DOMAINS]
    + ["Mistletoe", "Sickle"]
    + [f"Pile:{d}" for d in DOMAINS]
    + ["Gaia"]  # a bare Gaia names no domain: a known token, never a legal move
)
ALIASES = {f"Gaia:{d}:dark": f"Gaia:{d}" for d in DOMAINS}


class RefInputError(ValueError):
    """Malformed input (exit code 2)."""


def domain_of(card: str) -> str | None:
    """Domain letter of a domain card token, None for Gaia / Mistletoe / Sickle."""
    if card in _DOMAIN_CARD_SET:
        return card[0]
    return None


def value_of(card: str) -> int:
    return int(card[1:])


def canonical(move: str) -> str:
    return ALIASES.get(move, move)


class RefRound:
    """One round. ``play`` returns None if the move was legal (and applies it), else a reason."""

    def __init__(self, players: int, variant: bool, hands: list[list[str]]) -> None:
        self.n = players
        self.variant = variant
        self.hands = [list(h) for h in hands]
        self.piles: list[dict[str, list[str]]] = [{} for _ in range(players)]
        self.gaia_seat = next(s for s in range(players) if "Gaia" in self.hands[s])
        self.light = False
        self.first_move_done = False
        self.leader = self.gaia_seat
        # The cards of the current trick: (seat, card token, domain it counts for or None).
        self.trick: list[tuple[int, str, str | None]] = []
        self.pending_sickles = 0  # Sickle removals still to do, with a choice currently pending
        self.pending_winner: int | None = None
        self.over = False
        self.ended_by: str | None = None
        self.scores: list[int] | None = None

    # ---- queries -------------------------------------------------------------------------

    def to_move(self) -> int | None:
        if self.over:
            return None
        if self.pending_winner is not None:
            return self.pending_winner
        return (self.leader + len(self.trick)) % self.n

    def led_domain(self) -> str | None:
        for _seat, _card, dom in self.trick:
            if dom is not None:
                return dom
        return None

    def tied_piles(self, seat: int) -> list[str]:
        """Domains of the seat's piles whose top card is the highest (empty list if no piles)."""
        piles = self.piles[seat]
        if not piles:
            return []
        best = max(value_of(p[-1]) for p in piles.values())
        return [d for d in DOMAINS if d in piles and value_of(piles[d][-1]) == best]

    def legal(self) -> list[str]:
        """Distinct legal move tokens, canonical spelling, sorted."""
        if self.over:
            return []
        if self.pending_winner is not None:
            return sorted(f"Pile:{d}" for d in self.tied_piles(self.pending_winner))
        seat = self.to_move()
        assert seat is not None  # not over, no pile choice pending: someone plays a card
        hand = self.hands[seat]
        if not self.first_move_done:
            # The Gaia holder must lead Gaia first, naming a domain.
            moves = [f"Gaia:{d}" for d in DOMAINS]
            if self.variant:
                moves += [f"Gaia:{d}:light" for d in DOMAINS]
            return sorted(moves)
        led = self.led_domain()
        if led is not None and any(domain_of(c) == led for c in hand):
            playable = [c for c in hand if domain_of(c) == led or c in ("Mistletoe", "Sickle")]
        else:
            playable = list(hand)
        # Gaia cannot be in a hand after the first move, but be explicit.
        playable = [c for c in playable if c != "Gaia"]
        return sorted(set(playable))

    # ---- moves ---------------------------------------------------------------------------

    def play(self, move: str) -> str | None:
        assert not self.over
        move = canonical(move)
        legal = self.legal()
        if move not in legal:
            return self.why_illegal(move)
        if self.pending_winner is not None:
            self.remove_pile(self.pending_winner, move.split(":")[1])
            self.pending_sickles -= 1
            self.pending_winner = None
            self.continue_sickles(self.leader)
            return None
        seat = self.to_move()
        assert seat is not None  # not over (asserted above): someone plays a card
        if move.startswith("Gaia:"):
            parts = move.split(":")
            self.light = len(parts) == 3 and parts[2] == "light"
            self.hands[seat].remove("Gaia")
            self.trick.append((seat, "Gaia", parts[1]))
        else:
            self.hands[seat].remove(move)
            self.trick.append((seat, move, domain_of(move)))
        self.first_move_done = True
        if len(self.trick) == self.n:
            self.finish_trick()
        return None

    def why_illegal(self, move: str) -> str:
        if move.startswith("Pile:"):
            return "no Sickle pile choice is pending"
        if self.pending_winner is not None:
            return "a Sickle pile choice is pending"
        if move == "Gaia":
            return "Gaia must name a domain"
        if move.endswith(":light") and not self.variant:
            return "the light side needs the variant"
        if not self.first_move_done:
            return "the Gaia holder must lead Gaia"
        return "not a legal move here"

    def finish_trick(self) -> None:
        led = self.led_domain()
        if led is None:
            winner = self.leader  # no domain card at all: the leader takes it
        else:
            best_seat, best_value = -1, -1
            for seat, card, dom in self.trick:
                if dom != led:
                    continue
                value = 0 if card == "Gaia" else value_of(card)
                if value > best_value:
                    best_seat, best_value = seat, value
            winner = best_seat
        cards = [card for _seat, card, _dom in self.trick]
        self.trick = []
        self.leader = winner
        # 1. Domain cards onto the winner's piles; the trick's lowest (dark) / highest (light)
        #    of each domain ends on top.
        for d in DOMAINS:
            mine = [c for c in cards if domain_of(c) == d]
            if not mine:
                continue
            if self.light:
                mine.sort(key=value_of)  # ascending: highest placed last (on top)
            else:
                mine.sort(key=value_of, reverse=True)  # descending: lowest on top
            self.piles[winner].setdefault(d, []).extend(mine)
        # 2. Five domains: the round ends at once; Sickles ignored.
        if all(d in self.piles[winner] for d in DOMAINS):
            self.end_round("five_domains", minus_three=winner)
            return
        # 3. Golden Sickle, once per Sickle in the trick.
        self.pending_sickles = cards.count("Sickle")
        self.continue_sickles(winner)

    def continue_sickles(self, winner: int) -> None:
        while self.pending_sickles > 0:
            tied = self.tied_piles(winner)
            if not tied:
                self.pending_sickles = 0
                break
            if len(tied) > 1:
                self.pending_winner = winner
                return
            self.remove_pile(winner, tied[0])
            self.pending_sickles -= 1
        if all(not h for h in self.hands):
            self.end_round("hands_empty")

    def remove_pile(self, seat: int, domain: str) -> None:
        del self.piles[seat][domain]

    def end_round(self, how: str, minus_three: int | None = None) -> None:
        self.over = True
        self.ended_by = how
        scores = []
        for seat in range(self.n):
            if seat == minus_three:
                scores.append(-3)
            else:
                scores.append(sum(value_of(p[-1]) for p in self.piles[seat].values()))
        self.scores = scores

    def piles_json(self) -> list[dict[str, list[str]]]:
        return [{d: list(p[d]) for d in DOMAINS if d in p} for p in self.piles]


# ---- input validation ------------------------------------------------------------------------


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise RefInputError(message)


def check_hands(players: int, hands: Any) -> list[list[str]]:
    _need(isinstance(hands, list), "hands must be a list")
    _need(len(hands) == players, "wrong number of hands")
    for hand in hands:
        _need(isinstance(hand, list), "a hand must be a list")
        _need(len(hand) == HAND_SIZE[players], "wrong hand size")
        for token in hand:
            _need(isinstance(token, str) and token in CARD_TOKENS, "unknown card token")
    every = [t for hand in hands for t in hand]
    for token in set(every):
        _need(every.count(token) <= COPIES[token], "a card is dealt too often")
    _need(every.count("Gaia") == 1, "Gaia must be dealt exactly once")
    return [list(h) for h in hands]


def parse(text: str) -> tuple[int, bool, list[tuple[list[list[str]], list[str]]]]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RefInputError("bad JSON") from exc
    _need(isinstance(data, dict), "not an object")
    _need(set(data) <= {"players", "variant", "rounds"}, "unknown key")
    players = data.get("players")
    _need(type(players) is int and players in HAND_SIZE, "players must be 3..5")
    variant = data.get("variant", False)
    _need(type(variant) is bool, "variant must be a bool")
    rounds = data.get("rounds")
    _need(isinstance(rounds, list) and 1 <= len(rounds) <= ROUNDS, "1..5 rounds")
    out = []
    for rnd in rounds:
        _need(isinstance(rnd, dict) and set(rnd) <= {"hands", "moves"}, "bad round")
        hands = check_hands(players, rnd.get("hands"))
        moves = rnd.get("moves", [])
        _need(isinstance(moves, list), "moves must be a list")
        for m in moves:
            _need(isinstance(m, str) and (m in MOVE_TOKENS or m in ALIASES), "unknown move")
        out.append((hands, list(moves)))
    return players, variant, out


def ref_replay(text: str) -> tuple[int, dict[str, Any]]:
    """Reference of ``replay``: (exit code, result); raises RefInputError when malformed."""
    players, variant, rounds = parse(text)
    out_rounds = []
    totals = [0] * players
    rnd: RefRound | None = None
    for r, (hands, moves) in enumerate(rounds):
        rnd = RefRound(players, variant, hands)
        for i, move in enumerate(moves):
            if rnd.over:
                raise RefInputError("a move after the round ended")
            reason = rnd.play(move)
            if reason is not None:
                return 1, {"ok": False, "round": r, "move": i, "error": reason}
        if not rnd.over and r < len(rounds) - 1:
            raise RefInputError("only the last round may be incomplete")
        out_rounds.append(
            {"ended_by": rnd.ended_by, "scores": rnd.scores, "piles": rnd.piles_json()}
        )
        if rnd.scores is not None:
            totals = [t + s for t, s in zip(totals, rnd.scores, strict=True)]
    assert rnd is not None
    finished = len(rounds) == ROUNDS and rnd.over
    winners = None
    if finished:
        best = max(totals)
        winners = [s for s in range(players) if totals[s] == best]
    return 0, {
        "ok": True,
        "rounds": out_rounds,
        "totals": totals,
        "finished": finished,
        "winners": winners,
        "to_move": rnd.to_move(),
        "legal": None if rnd.over else rnd.legal(),
    }
