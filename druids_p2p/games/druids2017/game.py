"""A whole game of Druids (2017): its round's fixed part at the mental card table, five rounds.

What every copy and every auditor must spell alike (a round's operations, the zones a card is shown
into, the breaches) comes first; the game over rules.Round, totals and winners, after it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from druids_p2p.games.druids2017.cards import (
    COLOUR_NAMES,
    DOMAINS,
    GAIA,
    GAIA_DARK,
    GAIA_LIGHT,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MISTLETOES,
    N_CARDS,
    N_DOMAINS,
    PILE,
    PLAY_MISTLETOE,
    PLAY_SICKLE,
    ROUNDS_PER_GAME,
    SICKLES,
    card_domain,
)
from druids_p2p.games.druids2017.notation import format_card
from druids_p2p.games.druids2017.rules import Round, TrickRecord
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import IllegalMove, InvalidDeal

# Druids 2017's part of the mental card table as data: a round's operations, the zones a card is
# shown into, and the claims that only the final reveal can judge.
#
# Kept apart from :mod:`.table_seat` (which follows one seat's copy of the game) because these are
# the fixed facts every copy and every auditor must spell alike: the deal that gives each seat a
# uniform hand with Gaia at a uniform seat (V2_SPEC.md, RULINGS.md "Deal"), the zone names of the
# wire, and the reasons a breach is blamed with.


DECK, LEAD, TRICK = "deck", "lead", "trick"
"""The two decks of a round (Gaia's holder is dealt from ``lead``) and the zone of a trick."""
YES, NO = "Word:yes", "Word:no"
"""A seat's word about its ``lead`` card: it is Gaia, or it is not."""
OTHERS = tuple(c for c in range(N_CARDS) if c != GAIA)


@dataclass(frozen=True, slots=True)
class SeatOp:
    """One card-table operation as the seam's ``CardOp`` gives it (the games import no deck);
    deck.md §6.2 defines each kind.
    """

    kind: str
    deck: str = ""
    zone: str = ""
    seat: int | None = None
    cards: tuple[int, ...] = ()
    position: int | None = None
    source: str = ""
    seats: tuple[int, ...] = ()


def round_ops(players: int) -> list[SeatOp]:
    """A round's deal at its own card table (protocol.md §11.2): Gaia and ``players - 1`` other
    cards shuffled in ``lead``, one to each seat, the rest dealt round-robin from ``deck``, so every
    hand is uniform and nobody learns where Gaia lies. ``lead`` starts as Gaia, created, not
    shuffled alone.
    """
    h = HAND_SIZE[players]
    ops = [SeatOp("shuffle", deck=DECK, cards=OTHERS), SeatOp("create", deck=LEAD, cards=(GAIA,))]
    ops += [SeatOp("transfer", deck=LEAD, source=DECK) for _ in range(players - 1)]
    ops.append(SeatOp("shuffle", deck=LEAD))
    seats = tuple(range(players))
    ops.append(SeatOp("deals", deck=LEAD, seats=seats))
    ops.append(SeatOp("deals", deck=DECK, seats=seats * (h - 1)))
    return ops


def gaia_zone(move: int) -> str:
    """The zone Gaia's lead ``move`` shows it into: ``gaia:D`` (dark side), ``gaia:D:light``."""
    light = ":light" if move >= GAIA_LIGHT else ""
    return f"gaia:{DOMAINS[(move - GAIA_DARK) % N_DOMAINS]}{light}"


_GAIA_ZONES = {gaia_zone(m): m for m in range(GAIA_DARK, GAIA_LIGHT + N_DOMAINS)}


def zone_move(card: int, zone: str) -> int:
    """The move that shows ``card`` into ``zone``; IllegalMove (its reason) if none does."""
    if zone in _GAIA_ZONES:
        if card != GAIA:
            return _refuse(f"only Gaia is led into {zone}, not {format_card(card)}")
        return _GAIA_ZONES[zone]
    if zone != TRICK:
        return _refuse(f"{zone!r} is no zone of the table ({TRICK}, gaia:D or gaia:D:light)")
    if card == GAIA:
        return _refuse("Gaia is led into gaia:D naming its domain (e.g. gaia:R), not into trick")
    if card in MISTLETOES:
        return PLAY_MISTLETOE
    return PLAY_SICKLE if card in SICKLES else card


def _refuse(reason: str) -> int:
    raise IllegalMove(reason)


@dataclass(frozen=True, slots=True)
class GaiaWord:
    """``seat``'s word in round ``round`` (0-based) that its ``lead`` card, at ``position``, is
    Gaia (``said`` True) or is not. Positions never change their card: the reveal judges it."""

    round: int
    seat: int
    said: bool
    position: int
    taken: int
    """Where the word lies among the moves and words the copy took this round."""

    def reason(self, cards: Mapping[int, int]) -> str | None:
        """Why ``cards`` (each position's card) show the word false, or None if it is true
        (or the card is not among them)."""
        card = cards.get(self.position)
        if card is None or (card == GAIA) == self.said:
            return None
        word = YES if self.said else NO
        return (
            f"P{self.seat} said {word} of its lead card in round {self.round + 1}, "
            f"which is {format_card(card)}"
        )


@dataclass(frozen=True, slots=True)
class Revoke:
    """``seat`` showed ``card`` in round ``round``, trick ``trick`` (0-based), not of the led
    domain ``led``, while it held the hidden positions ``held``: a revoke if one is of ``led``."""

    round: int
    trick: int
    seat: int
    card: int
    led: int
    held: tuple[int, ...]
    taken: int
    """Where the play lies among the moves and words the copy took this round."""

    def reason(self, cards: Mapping[int, int]) -> str | None:
        """Why ``cards`` show the play broke follow-suit, or None if it did not."""
        owed = [cards[p] for p in self.held if p in cards and card_domain(cards[p]) == self.led]
        if not owed:
            return None
        return (
            f"P{self.seat} played {format_card(self.card)} on a {COLOUR_NAMES[self.led]} lead "
            f"(round {self.round + 1}, trick {self.trick + 1}) while holding "
            f"{' '.join(format_card(c) for c in sorted(owed))}"
        )


Claim = GaiaWord | Revoke


__all__ = [
    "DECK",
    "LEAD",
    "NO",
    "TRICK",
    "YES",
    "Claim",
    "GaiaWord",
    "Revoke",
    "SeatOp",
    "gaia_zone",
    "round_ops",
    "zone_move",
]


# A whole game: five rounds, totals and winners, over :class:`.rules.Round`.


@dataclass(frozen=True, slots=True)
class GameOptions:
    """Options fixed for a whole game (and bound into a LAN table's id)."""

    players: int = 4
    variant: bool = False
    """Gaia's light side may be chosen (off by default)."""
    rounds: int = ROUNDS_PER_GAME

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"Druids is for 3 to 5 players, not {self.players}")
        if not 1 <= self.rounds <= ROUNDS_PER_GAME:
            raise ValueError(f"a game has 1 to {ROUNDS_PER_GAME} rounds, not {self.rounds}")

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]


class Game:
    """Create with options, ``start_round(hands)`` for each deal, then ``play`` moves.

    Every peer, bot and replay drives the rules through this class (or the generic
    :class:`~druids_p2p.games.seam.GameState` protocol it satisfies).
    """

    def __init__(self, options: GameOptions | None = None) -> None:
        self.options = options or GameOptions()
        self.rounds: list[Round] = []

    # ------------------------------------------------------------- lifecycle
    @property
    def players(self) -> int:
        return self.options.players

    @property
    def round(self) -> Round | None:
        """The round being played (or the last one), None before the first deal."""
        return self.rounds[-1] if self.rounds else None

    @property
    def round_index(self) -> int:
        return len(self.rounds) - 1

    @property
    def round_ended_by(self) -> str | None:
        """How the last round ended (None while it is under way or before the first deal)."""
        rnd = self.round
        return None if rnd is None or not rnd.over else rnd.ended_by

    @property
    def round_over(self) -> bool:
        """True when no round is under way (none dealt yet, or the last one has ended)."""
        rounds = self.rounds  # (asked on every message at a table: no property in between)
        return not rounds or rounds[-1].ended_by is not None

    @property
    def game_over(self) -> bool:
        return len(self.rounds) == self.options.rounds and self.rounds[-1].over

    @property
    def needs_deal(self) -> bool:
        return self.round_over and not self.game_over

    def start_round(self, hands: list[list[int]]) -> Round:
        """Deal the next round; raises InvalidDeal for a bad deal, RuntimeError out of turn."""
        if not self.round_over:
            raise RuntimeError("the current round has not ended")
        if self.game_over:
            raise RuntimeError("the game is over")
        if len(hands) != self.players:
            raise InvalidDeal(f"expected {self.players} hands, got {len(hands)}")
        rnd = Round(hands, variant=self.options.variant)
        self.rounds.append(rnd)
        return rnd

    def start_hidden_round(self, seat: int | None, hand: list[int]) -> Round:
        """Deal the next round as ``seat`` sees it at a table: only its own hand is known
        (``seat`` None: an onlooker's, which knows no hand).

        Other seats' cards enter through ``round.reveal(seat, card)`` as the deal opens them.
        """
        if not self.round_over:
            raise RuntimeError("the current round has not ended")
        if self.game_over:
            raise RuntimeError("the game is over")
        rnd = Round.hidden(self.players, seat, hand, variant=self.options.variant)
        self.rounds.append(rnd)
        return rnd

    def reveal(self, seat: int, card: int) -> None:
        """A card of ``seat``'s hidden hand, shown by the deal (ValueError if it cannot be)."""
        if self.round is None:
            raise ValueError("no round has been dealt")
        self.round.reveal(seat, card)

    # --------------------------------------------------------------- moves
    @property
    def to_move(self) -> int | None:
        rounds = self.rounds  # (asked on every message at a table: no property in between)
        return rounds[-1].to_move if rounds else None

    def legal_moves(self) -> list[int]:
        rounds = self.rounds  # (every move of every peer and bot: no property in between)
        return rounds[-1].legal_moves() if rounds else []

    def check(self, move: int) -> str | None:
        """None if legal, else why not (pokerkit style: verify before do)."""
        rounds = self.rounds
        return rounds[-1].check(move) if rounds else "no round has been dealt"

    def play(self, move: int) -> None:
        """Apply a move; raises IllegalMove with the reason if it is not legal."""
        rounds = self.rounds
        if not rounds:
            raise IllegalMove("no round has been dealt")
        rounds[-1].play(move)

    # -------------------------------------------------------------- scores
    @property
    def round_scores(self) -> list[list[int]]:
        """Scores of every ended round, in order."""
        return [list(r.scores) for r in self.rounds if r.scores is not None]

    @property
    def totals(self) -> list[int]:
        totals = [0] * self.players
        for scores in self.round_scores:
            for seat, score in enumerate(scores):
                totals[seat] += score
        return totals

    @property
    def winners(self) -> list[int] | None:
        """Seats with the highest total once the game is over (a tie shares the win)."""
        if not self.game_over:
            return None
        totals = self.totals
        best = max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    # ---------------------------------------------------------------- views
    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now; never another seat's hidden cards."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} at a {self.players}-player table")
        rnd = self.round
        if rnd is None:
            raise RuntimeError("no round has been dealt")
        n = self.players
        to_move = rnd.to_move
        return PlayerView(
            seat=seat,
            players=n,
            variant=self.options.variant,
            round_index=self.round_index,
            hand=tuple(rnd.hand(seat)),
            hand_sizes=tuple(rnd.hand_size),
            to_move=to_move,
            legal=tuple(rnd.legal_moves()) if to_move == seat else (),
            leader=rnd.leader,
            trick=tuple(rnd.trick),
            lead_domain=rnd.lead_domain,
            light=rnd.light,
            tricks=tuple(_trick_tuple(t) for t in rnd.tricks),
            pile_tops=tuple(tuple(rnd.top(s, d) for d in range(N_DOMAINS)) for s in range(n)),
            pile_sizes=tuple(
                tuple(len(rnd.piles[s * N_DOMAINS + d]) for d in range(N_DOMAINS)) for s in range(n)
            ),
            pending_pile_choice=tuple(m - PILE for m in rnd.legal_moves())
            if rnd.pending_sickles and to_move == seat
            else (),
            round_scores=tuple(tuple(s) for s in self.round_scores),
            totals=tuple(self.totals),
            round_over=rnd.over,
            game_over=self.game_over,
        )


def _trick_tuple(t: TrickRecord) -> tuple[int, tuple[tuple[int, int], ...], int, tuple[int, ...]]:
    return (t.leader, t.plays, t.winner, t.removed)
