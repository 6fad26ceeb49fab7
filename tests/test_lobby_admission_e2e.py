"""``druids peer --host --approve`` as a real process: the host answers on its terminal (here a
pipe) for every joiner; a refused joiner stops with one line, the approved ones play."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from druids_p2p.lan.seating import REFUSED_REASON
from druids_p2p.peer.local_table import PeerProcess, peer_argv

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

BOUND_S = 60.0


class HostProcess:
    """The host, with its standard input a pipe the test answers on."""

    def __init__(self, home: Path) -> None:
        home.mkdir(parents=True)
        self.log = home / "peer.log"
        argv = peer_argv(
            "bot:random",
            "alice",
            20.0,
            ["--host", "--approve", "--players", "3", "--rounds", "1", "--no-announce"],
        )
        self.events: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        with open(self.log, "w") as stderr:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env={**os.environ, "DRUIDS_HOME": str(home)},
            )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            with self.changed:
                self.events.append(event)
                self.changed.notify_all()

    def wait_for(self, kind: str, count: int = 1) -> dict[str, Any]:
        def found() -> list[dict[str, Any]]:
            return [e for e in self.events if e.get("event") == kind]

        with self.changed:
            ok = self.changed.wait_for(
                lambda: len(found()) >= count or self.proc.poll() is not None, BOUND_S
            )
        assert ok and len(found()) >= count, (kind, self.events[-5:], self.log.read_text())
        return found()[count - 1]

    def answer(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()


def _joiner(tmp: Path, index: int, name: str, lobby: str) -> PeerProcess:
    argv = peer_argv("bot:random", name, 20.0, ["--join", lobby, "--no-announce"])
    peer = PeerProcess(index, tmp / name, argv, human=False)
    peer.start()
    return peer


def test_host_approve_refuses_and_seats_joiners_as_answered(tmp_path: Path) -> None:
    host = HostProcess(tmp_path / "alice")
    peers: list[PeerProcess] = []
    try:
        lobby = str(host.wait_for("lobby")["lobby"])
        host.answer("n\n")
        peers.append(_joiner(tmp_path, 1, "mallory", lobby))
        refused = host.wait_for("refused")
        assert refused["name"] == "mallory"
        host.answer("y\ny\n")
        for i, name in enumerate(("bob", "carol"), start=1):
            peers.append(_joiner(tmp_path, i + 1, name, lobby))
            assert host.wait_for("joined", i)["name"] == name
        assert host.wait_for("result")["finished"], host.log.read_text()
        for peer in peers:
            assert peer.proc is not None
            peer.proc.wait(BOUND_S)
    finally:
        for peer in peers:
            peer.kill()
        host.proc.kill()
        host.proc.wait(10)
    mallory = peers[0]
    assert mallory.proc is not None and mallory.proc.returncode == 1
    log = mallory.tail_log()
    assert f"druids: error: the host refused: {REFUSED_REASON}" in log
    assert "Traceback" not in log
    prompts = host.log.read_text()
    assert prompts.count("join request: ") == 3 and "Seat them? [y/n]" in prompts
    assert [(r := p.result()) is not None and r["finished"] for p in peers[1:]] == [True, True]
