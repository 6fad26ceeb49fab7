"""The faults a LAN party meets, on a namespaced LAN behind a userspace switch (issue 13).

Four peer processes (``druids host`` in ns0, ``druids join NAME`` in ns1..ns3, random bots), each
with its own home, on a :class:`netns.TapLan`: one TAP per peer namespace, forwarded by
``netns_switch.py``, which can cut one port, delay, drop and reorder frames (this kernel has no
``sch_netem``). Every scenario ends either with a finished game whose four records match and
audit, or with the stop recorded for the right reason.

The figures the issue asks for are measured here and printed (``FAULTS:`` lines; run with
``-s``), never asserted: how long after a cable comes back the table moves again, and how much
slower a game is under 30% loss than on a clean switch.

Safety: traffic stays on 10.77.0.0/24 between the test's namespaces (the switch touches only the
TAPs it made); the root namespace gets no links. Every wait is bounded; ``--rounds 1`` keeps each
game short.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_harness import audit_record
from lan_peers import Peer, allowed, table_report
from lan_peers import results_of as lan_results
from netns import Lan, TapLan, open_lan

pytestmark = [pytest.mark.netns, pytest.mark.slow, pytest.mark.xdist_group("netns-faults")]
"""One xdist worker runs the fault suite in order, from the start of a ``-n 2`` run: its cable
cuts and lossy games mostly wait (little CPU), and two of them at once would only make each
other's timing windows tighter while the other worker's CPU work is what the run waits for."""

TABLE = "lan-faults"
PLAYERS = 4
ROUNDS = 1
LOBBY_TIMEOUT_S = 20.0
GAME_TIMEOUT_S = 90.0
"""A clean 1-round game takes a few seconds; a cut or a restart adds its own length."""
LOSSY_TIMEOUT_S = 300.0
EXIT_TIMEOUT_S = 15.0
VICTIM = 2
CUT_AFTER_MOVES = 4


def figure(text: str) -> None:
    """A measured figure, for the README and the issue: printed, never asserted."""
    print(f"FAULTS: {text}", flush=True)


@pytest.fixture
def tap_lan() -> Iterator[TapLan]:
    with open_lan(PLAYERS, TapLan) as lan:  # skips where namespaces or TUN cannot be made
        assert isinstance(lan, TapLan)  # open_lan builds the kind it is given
        yield lan


def _common(*extra: str) -> list[str]:
    return ["--bot", "random", "--json", *extra]


def host_args(lan: Lan, homes: list[Path], *extra: str) -> list[str]:
    """The host's command, seating the joiners of ``homes`` (``homes[0]`` is the host's own)."""
    args = ["host", "--name", TABLE, "--players", str(PLAYERS), "--rounds", str(ROUNDS)]
    return [*args, *allowed(homes[1:]), "--address", lan.address(0), *_common(*extra)]


def join_args(lan: Lan, i: int, *extra: str) -> list[str]:
    args = ["join", TABLE, "--address", lan.address(i), "--seconds", "15"]
    return [*args, *_common(*extra)]


def start_table(lan: Lan, homes: list[Path], *extra: str) -> list[Peer]:
    """The host, then (once its lobby is open) the three joiners, each in its own home."""
    host = Peer(lan, 0, host_args(lan, homes, *extra), homes[0])
    peers = [host]
    assert host.wait_for("lobby", LOBBY_TIMEOUT_S), "no lobby" + table_report(peers)
    for i in range(1, PLAYERS):
        peers.append(Peer(lan, i, join_args(lan, i, *extra), homes[i]))
    return peers


def homes_in(root: Path) -> list[Path]:
    return [root / f"ns{i}" for i in range(PLAYERS)]


def results_of(peers: list[Peer], timeout: float) -> list[dict[str, Any]]:
    """Every peer's last result event, once each process has exited (0, or 1 for a stopped
    table) after printing it."""
    return lan_results(peers, timeout, (0, 1), EXIT_TIMEOUT_S)


def check_finished(peers: list[Peer], results: list[dict[str, Any]]) -> None:
    """One finished game, seen the same by every peer, each record its own and auditing."""
    why = table_report(peers)
    for peer, r in zip(peers, results, strict=True):
        assert peer.proc.returncode == 0, (peer.index, why)
        assert r["finished"] and r["aborted"] is None and r["blame"] is None, (r, why)
        assert r["bad_messages"] == 0 and r["faults"] == [], (r, why)
        assert len(r["round_scores"]) == ROUNDS and r["winners"], (r, why)
        assert Path(r["record"]).is_relative_to(peer.home)
    assert len({json.dumps([r["totals"], r["round_scores"], r["winners"]]) for r in results}) == 1
    assert len({r["head"] for r in results}) == 1, [r["head"] for r in results]
    assert sorted(r["seat"] for r in results) == list(range(PLAYERS))
    for r in results:
        code, report = audit_record(r["record"])
        assert code == 0 and report["ok"] and report["complete"], (r["record"], report)
        assert report["totals"] == r["totals"] and report["winners"] == r["winners"], report


def wait_moves(peer: Peer, count: int, peers: list[Peer]) -> None:
    got = peer.wait_for("move", GAME_TIMEOUT_S, lambda ms: len(ms) >= count)
    assert got, "the game did not get going" + table_report(peers)


def first_move_after(peers: list[Peer], since: float) -> float | None:
    """Seconds from ``since`` until any peer saw a move (the table moving again)."""
    times = [t for p in peers if (t := p.first_after("move", since)) is not None]
    return min(times) - since if times else None


def play_clean(lan: Lan, root: Path) -> float:
    """A clean game on this switch (the baseline for the lossy ones); its length in seconds."""
    began = time.monotonic()
    peers = start_table(lan, homes_in(root))
    check_finished(peers, results_of(peers, GAME_TIMEOUT_S))
    return time.monotonic() - began


@pytest.fixture(scope="module")
def clean_s(tmp_path_factory: pytest.TempPathFactory) -> float:
    """The clean baseline game, played and checked once on a switch of its own (closed before
    the lossy tests open theirs) and shared by them: it only gives the figure they print, so
    one clean game per run is enough (the module's tests run on one worker, ``xdist_group``)."""
    with open_lan(PLAYERS, TapLan) as lan:  # skips where namespaces or TUN cannot be made
        return play_clean(lan, tmp_path_factory.mktemp("clean"))


# ============================================================================ cables cut
@pytest.mark.timeout(400)
@pytest.mark.parametrize("cut_s", [5.0, 60.0])
def test_a_cut_cable_is_waited_for_and_the_table_moves_again_soon_after(
    tap_lan: TapLan, tmp_path: Path, cut_s: float
) -> None:
    """Pull one joiner's cable mid-game for ``cut_s``: the others mark it away and wait; once
    it is back the game completes. Measured: how soon after the restore the table moves again
    (the issue wants under 2 s whatever the outage; a 60 s cut used to stall 12-15 s)."""
    # A seat silent past the step deadline and its rejoin time is recorded unreachable
    # (protocol.md §9): a table meant to sit out a cable cut of a minute gives it that time.
    deadlines = ("--gone-after", str(2 * cut_s + 120), "--rejoin-time", str(cut_s + 30))
    peers = start_table(tap_lan, homes_in(tmp_path), *deadlines)
    wait_moves(peers[0], CUT_AFTER_MOVES, peers)
    tap_lan.cut(VICTIM)
    cut_at = time.monotonic()
    try:
        time.sleep(cut_s)
        ended = any(p.events("result") for p in peers)
        assert not ended, "ended during the cut" + table_report(peers)
    finally:
        tap_lan.restore(VICTIM)
    restored = time.monotonic()
    results = results_of(peers, GAME_TIMEOUT_S)
    moved = first_move_after(peers, restored)
    figure(
        f"cut {restored - cut_at:.1f} s: the table moved again "
        + ("never" if moved is None else f"{moved:.2f} s")
        + " after the cable came back"
    )
    check_finished(peers, results)
    name = f"ns{VICTIM}"
    others = [p for i, p in enumerate(peers) if i != VICTIM]
    away = [p.index for p in others if any(e["name"] == name for e in p.events("away"))]
    assert away, f"nobody noticed {name} was gone" + table_report(peers)
    assert not peers[VICTIM].events("rejoining")  # the same process went on


# ============================================================================ crashes
def test_the_host_killed_mid_game_comes_back_with_its_command_and_the_game_completes(
    tap_lan: TapLan, tmp_path: Path
) -> None:
    homes = homes_in(tmp_path)
    peers = start_table(tap_lan, homes)
    wait_moves(peers[0], CUT_AFTER_MOVES, peers)
    peers[0].proc.kill()  # kill -9: no abort sent, nothing flushed but what was written
    peers[0].proc.wait(timeout=EXIT_TIMEOUT_S)
    time.sleep(2.0)
    again = Peer(tap_lan, 0, host_args(tap_lan, homes), homes[0])
    peers[0] = again
    rejoined = again.wait_for("rejoining", LOBBY_TIMEOUT_S)
    assert rejoined, "the host did not rejoin" + table_report(peers)
    check_finished(peers, results_of(peers, GAME_TIMEOUT_S))


def test_a_joiner_killed_mid_game_comes_back_with_its_exact_join_name_command(
    tap_lan: TapLan, tmp_path: Path
) -> None:
    """Needs issue 13 item 2 (the saved table looked up by name before any beacon)."""
    homes = homes_in(tmp_path)
    peers = start_table(tap_lan, homes)
    wait_moves(peers[0], CUT_AFTER_MOVES, peers)
    peers[VICTIM].proc.kill()
    peers[VICTIM].proc.wait(timeout=EXIT_TIMEOUT_S)
    time.sleep(2.0)
    again = Peer(tap_lan, VICTIM, join_args(tap_lan, VICTIM), homes[VICTIM])
    peers[VICTIM] = again
    assert again.wait_for("rejoining", LOBBY_TIMEOUT_S), "no rejoin" + table_report(peers)
    check_finished(peers, results_of(peers, GAME_TIMEOUT_S))


def test_a_new_table_after_a_stopped_one_in_the_same_homes(tap_lan: TapLan, tmp_path: Path) -> None:
    """A joiner dies for good: the others wait ``--gone-after`` and stop, recording why. Then a
    new table in the same homes (the dead joiner's seat taken by a fresh home) plays to the end,
    and the stopped records stay on disk. Needs issue 13 item 1 (a stopped table blocks none)."""
    homes = homes_in(tmp_path)
    peers = start_table(tap_lan, homes, "--gone-after", "6")
    wait_moves(peers[0], CUT_AFTER_MOVES, peers)
    peers[VICTIM].proc.kill()
    peers[VICTIM].proc.wait(timeout=EXIT_TIMEOUT_S)
    survivors = [p for i, p in enumerate(peers) if i != VICTIM]
    stopped = results_of(survivors, GAME_TIMEOUT_S)
    for r in stopped:
        aborted = r["aborted"] or ""
        assert not r["finished"] and "ns2 (seat" in aborted, (r, table_report(peers))
        assert "unreachable: gone for" in aborted, (r, table_report(peers))
    homes[VICTIM] = tmp_path / "fresh"
    second = start_table(tap_lan, homes)
    check_finished(second, results_of(second, GAME_TIMEOUT_S))
    for r in stopped:
        assert Path(r["record"]).exists()


# ============================================================================ lossy links
@pytest.mark.timeout(600)
def test_a_slow_lossy_reordering_switch_still_plays_the_game(
    tap_lan: TapLan, tmp_path: Path, clean_s: float
) -> None:
    """100 ms ± 20 ms on every frame, 5% lost, 10% reordered."""
    tap_lan.impair(delay_ms=100, jitter_ms=20, loss=0.05, reorder=0.1)
    began = time.monotonic()
    peers = start_table(tap_lan, homes_in(tmp_path / "lossy"))
    check_finished(peers, results_of(peers, LOSSY_TIMEOUT_S))
    took = time.monotonic() - began
    figure(f"100±20 ms, 5% loss, 10% reorder: {took:.1f} s against {clean_s:.1f} s clean")


@pytest.mark.timeout(600)
def test_thirty_percent_loss_kills_no_peer_and_the_game_completes(
    tap_lan: TapLan, tmp_path: Path, clean_s: float
) -> None:
    """Every frame has a 30% chance to be lost (each way). libzmq 4.3.5 used to abort a peer
    here (``Assertion failed: !_io_error``, exit 134); now every peer finishes. Measured: the
    game's length against a clean game on a switch of the same kind (the issue wants at
    most 5x)."""
    tap_lan.impair(loss=0.3)
    began = time.monotonic()
    peers = start_table(tap_lan, homes_in(tmp_path / "lossy"), "--gone-after", "120")
    results = results_of(peers, LOSSY_TIMEOUT_S)
    took = time.monotonic() - began
    figure(f"30% loss: {took:.1f} s against {clean_s:.1f} s clean ({took / clean_s:.1f}x)")
    for peer in peers:
        assert "Assertion failed" not in peer.log.read_text(errors="replace"), table_report(peers)
    check_finished(peers, results)
