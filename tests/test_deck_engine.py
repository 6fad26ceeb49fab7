"""The audit hands the caller everything needed to replay a round through the rules engine.

During play nobody can check that a card follows suit (the others' hands are secret); after the
reveal the audit returns every hand and every card shown, in order, and a replay through the
engine convicts a renege with the signed deck_open as evidence.
"""

from __future__ import annotations

import pytest
from deck_local import LocalBus, make_table, seeded_entropy

from druids_p2p.deck import DeckFault, DeckParams

engine = pytest.importorskip("druids_p2p.games.druids2017")
Game, GameOptions = engine.Game, engine.GameOptions
cards_for_move = engine.cards_for_move
N_DOMAIN_CARDS, N_VALUES = 60, 12


def _domain(card: int) -> int:
    return card // N_VALUES if card < N_DOMAIN_CARDS else -1


def replay_for_renege(result, moves, peer) -> DeckFault | None:  # type: ignore[no-untyped-def]
    """What the caller does after the audit: the rules, with every hand known."""
    game = Game(GameOptions(players=len(result.hands)))
    game.start_round([list(h) for h in result.hands])
    shown = iter(result.opened)
    for seat, move in moves:
        position = None
        if cards_for_move(move):
            opened = next(shown)
            assert opened.seat == seat and opened.card in cards_for_move(move)
            position = opened.position
        reason = game.check(move)
        if reason is not None:
            evidence = () if position is None else (peer.open_message(position),)
            return DeckFault(seat, f"renege: {reason}", evidence)
        game.play(move)
    return None


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_renege_is_found_by_replaying_the_audited_round(players: int) -> None:
    hand_size = {3: 15, 4: 14, 5: 13}[players]
    params = DeckParams(b"E" * 32, 0, 65, players, hand_size, frozenset({engine.GAIA}))
    peers = make_table(params, entropy=lambda s: seeded_entropy(b"renege" + bytes([players, s])))
    bus = LocalBus(peers)
    bus.start()
    bus.run()
    hands = [list(p.hand()) for p in peers]
    # the live game: the harness knows the true hands only to pick moves; the cheater reneges once
    live = Game(GameOptions(players=players))
    live.start_round([list(h) for h in hands])
    remaining = [set(h) for h in hands]
    moves: list[tuple[int, int]] = []
    cheater = None
    while not live.round_over:
        seat = live.to_move
        assert seat is not None
        rnd = live.round
        move = live.legal_moves()[-1]
        led = rnd.lead_domain
        if cheater is None and rnd.trick and led >= 0:
            mine = remaining[seat]
            off = sorted(c for c in mine if c < N_DOMAIN_CARDS and _domain(c) != led)
            if off and any(_domain(c) == led for c in mine):
                move, cheater = off[0], seat
        cards = cards_for_move(move)
        if cards:
            card = next(c for c in cards if c in remaining[seat])
            remaining[seat].discard(card)
            bus.post(seat, [peers[seat].open_card(card)])
            bus.run()
        moves.append((seat, move))
        if cheater is not None:
            break  # the round would go on; the renege is what matters here
        live.play(move)
    assert cheater is not None, "no renege opportunity arose"
    for p in peers:
        bus.post(p.seat, [p.reveal()])
    bus.run()
    result = peers[(cheater + 1) % players].audit()
    fault = replay_for_renege(result, moves, peers[0])
    assert fault is not None
    assert fault.seat == cheater
    assert "does not follow" in fault.reason
    assert fault.evidence and fault.evidence[0] == peers[cheater].open_message(
        result.opened[-1].position
    )


def test_an_honest_round_replays_cleanly() -> None:
    params = DeckParams(b"E" * 32, 1, 65, 4, 14, frozenset({engine.GAIA}))
    peers = make_table(params)
    bus = LocalBus(peers)
    bus.start()
    bus.run()
    live = Game(GameOptions(players=4))
    live.start_round([list(p.hand()) for p in peers])
    remaining = [set(p.hand()) for p in peers]
    moves: list[tuple[int, int]] = []
    while not live.round_over:
        seat = live.to_move
        assert seat is not None
        move = live.legal_moves()[0]
        cards = cards_for_move(move)
        if cards:
            card = next(c for c in cards if c in remaining[seat])
            remaining[seat].discard(card)
            bus.post(seat, [peers[seat].open_card(card)])
            bus.run()
        moves.append((seat, move))
        live.play(move)
    for p in peers:
        bus.post(p.seat, [p.reveal()])
    bus.run()
    assert replay_for_renege(peers[0].audit(), moves, peers[0]) is None
