"""The pacer (tui/game_ui.py) on a fake clock: holds, a key ending a trick's hold, blocks."""

from __future__ import annotations

from druids_p2p.tui.game_ui import NO_PACING, UI_PACING, Pacer


class FakeClock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_items_wait_out_each_hold_in_order() -> None:
    clock = FakeClock()
    pacer: Pacer[str] = Pacer(clock)
    assert pacer.next_ready() is None and pacer.wait_s() is None
    for item in ("a", "b", "c"):
        pacer.push(item)
    assert pacer.next_ready() == "a"
    pacer.hold(1.0)
    assert pacer.next_ready() is None and pacer.wait_s() == 1.0
    clock.now += 0.5
    assert pacer.next_ready() is None and pacer.wait_s() == 0.5
    clock.now += 0.5
    assert pacer.next_ready() == "b"
    pacer.hold(3.0, key_ends=True)
    pacer.hold(1.0)  # a shorter hold never cuts a longer one short
    clock.now += 2.0
    assert pacer.holding and pacer.key_ends_hold and pacer.next_ready() is None
    pacer.release()  # a key
    assert pacer.next_ready() == "c" and pacer.next_ready() is None


def test_a_block_waits_for_release_whatever_the_time() -> None:
    clock = FakeClock()
    pacer: Pacer[int] = Pacer(clock)
    pacer.push(1)
    pacer.block()
    clock.now += 1e6
    assert pacer.next_ready() is None and pacer.wait_s() is None
    pacer.release()
    assert pacer.next_ready() == 1


def test_zero_holds_nothing() -> None:
    pacer: Pacer[int] = Pacer(FakeClock())
    pacer.push(1)
    pacer.push(2)
    pacer.hold(NO_PACING.trick_s, key_ends=True)
    assert pacer.next_ready() == 1 and pacer.next_ready() == 2
    assert NO_PACING.off and not UI_PACING.off and UI_PACING.trick_s >= 2.0
