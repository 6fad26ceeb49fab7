"""Random legal play of whole games of Druids (2004), and `druids demo` telling one turn by turn.

The bench, the demo and the property tests drive the same random play."""

from __future__ import annotations

import random
from collections.abc import Iterator

from druids_p2p.games.druids2004.cards import KIND_NAMES, format_card, place_kind
from druids_p2p.games.druids2004.records import (
    ENDED_COLUMN,
    ENDED_NOTHING_LEFT,
    ENDED_ROW,
    ENDED_STALL,
    Discarded,
    Drew,
    GameEnded,
    Played,
    Record,
    Reshuffled,
    RitualDone,
    Stopped,
    TurnEnded,
)
from druids_p2p.games.druids2004.setup import Options, random_setup
from druids_p2p.games.druids2004.state import Game2004

# Random legal play of whole games: the bench, the demo and the property tests drive this.


MAX_STEPS = 20_000
"""No game takes this many operations (each turn draws or plays, or counts toward the stall)."""


def advance(game: Game2004, rng: random.Random) -> None:
    """Give every due reserve a random new order (what the deck does at a table)."""
    while game.pending_reshuffle is not None:
        game.shuffle_reserve_random(rng)


def random_game(rng: random.Random, options: Options) -> Game2004:
    """A new game set up from ``rng``."""
    return Game2004(random_setup(rng, options.players), options)


def play_random(game: Game2004, rng: random.Random) -> int:
    """Play uniformly random legal moves to the end; returns the number of moves."""
    for moves in range(MAX_STEPS):
        advance(game, rng)
        if game.game_over:
            return moves
        game.play(rng.choice(game.legal_moves()))
    raise RuntimeError(f"a game did not end within {MAX_STEPS} moves")


def play_random_game(rng: random.Random, options: Options) -> tuple[Game2004, int]:
    game = random_game(rng, options)
    return game, play_random(game, rng)


# A whole game between random players, told turn by turn (``druids demo --game druids2004``),
# its places numbered 1-6 as every screen numbers them (the notation's slots are 0-5).


ENDS = {
    ENDED_COLUMN: "the score column could not move on",
    ENDED_ROW: "only one place is left without a ritual",
    ENDED_NOTHING_LEFT: "nothing is left to score",
    ENDED_STALL: "a full round of turns did nothing",
}
"""How each of the records' end reasons (``END_REASONS``) is told."""


def ritual_lines(r: RitualDone) -> list[str]:
    kind = KIND_NAMES[place_kind(r.place)]
    lines = [
        f"    ritual on place {r.slot + 1} ({format_card(r.place)}, {kind}): "
        f"{len(r.amulets)} amulet(s), {len(r.discarded)} other gem(s) out, "
        f"servants {' '.join(format_card(s) for s in r.servants) or '-'}"
    ]
    for s in r.shares:
        lines.append(
            f"      {format_card(s.servant)} takes {len(s.amulets)}: P{s.owner} +{s.points}"
        )
    if r.turned is not None:
        lines.append(f"      {format_card(r.turned)} is turned into place {r.slot + 1}")
    return lines


def _record_lines(record: Record) -> list[str]:
    if isinstance(record, RitualDone):
        return ritual_lines(record)
    if isinstance(record, Played):
        return [f"    plays {format_card(record.card)} onto place {record.slot + 1}"]
    if isinstance(record, Discarded):
        return [f"    discards {format_card(record.card)}"]
    if isinstance(record, Drew):
        where = "the gem pile" if record.source == "gem" else "its reserve"
        return [f"    draws {format_card(record.card)} from {where}"]
    if isinstance(record, Reshuffled):
        return [f"    P{record.seat}'s reserve is reshuffled ({len(record.order)} servants)"]
    if isinstance(record, Stopped):
        return ["    stops"]
    return []


def game_lines(game: Game2004) -> Iterator[str]:
    """The game's log as text, one block per turn."""
    names = " ".join(format_card(p) for p in game.setup.places[:6])
    yield f"Druids (2004), {game.players} players; P{game.setup.start} starts; row {names}"
    turn, seat, header = 1, game.setup.start, True
    for record in game.log:
        if isinstance(record, GameEnded):
            winners = ", ".join(f"P{w}" for w in record.winners)
            yield f"Game over: {ENDS[record.reason]}."
            yield f"Scores {list(record.scores)}; won by {winners}"
            continue
        if header:
            yield f"Turn {turn}: P{seat}"
            header = False
        if isinstance(record, TurnEnded):
            if not record.active:
                yield "    does nothing"
            yield f"  scores {record_scores(game, record)}"
            turn, seat, header = turn + 1, (record.seat + 1) % game.players, True
        else:
            yield from _record_lines(record)


def record_scores(game: Game2004, upto: TurnEnded) -> list[int]:
    """Scores after the turn ``upto`` ended (replayed from the log's ritual shares)."""
    scores = [0] * game.players
    for record in game.log:
        if isinstance(record, RitualDone):
            for s in record.shares:
                scores[s.owner] += s.points
        if record is upto:
            break
    return scores


def demo_lines(players: int, seed: int, options: Options | None = None) -> Iterator[str]:
    opts = options or Options(players=players)
    game, _ = play_random_game(random.Random(seed), opts)
    yield from game_lines(game)
