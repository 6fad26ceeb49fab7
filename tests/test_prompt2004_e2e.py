"""A person at the plain terminal plays Druids (2004): ``druids play --headless --game
druids2004 --seats human,bot:rule`` is a table of two peer processes on loopback whose human
seat reads its moves from standard input (``lan/peer_config.py`` ``PromptPlayer``). The test is the
person: it reads each prompt (the rule set's lines of the seat's view, the legal move tokens)
and types an answer."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest

from druids_p2p.games.druids2004.cards import N_GEMS, format_card

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GAME_S = 240.0
"""A bound on the whole game's wall time (it takes seconds when the machine is idle)."""

PROMPT_END = "your move> "


def _not_held(prompt: str) -> str:
    """A well-formed move of a gem this seat does not hold: the table refuses it, not the prompt."""
    hand = next(line for line in prompt.splitlines() if line.startswith("your hand: "))
    held = set(hand.split()[2:])
    gem = next(format_card(g) for g in range(N_GEMS) if format_card(g) not in held)
    return f"{gem}>1"


def test_a_person_types_a_whole_druids2004_game_at_a_table_of_peers(tmp_path: Path) -> None:
    """Non-moves are told and asked again; a well-formed move the table's own check refuses
    (a gem not held) is asked again with the table's reason; legal tokens from the prompt play
    the game to its end, which both peers agree on."""
    argv = [sys.executable, "-m", "druids_p2p", "play", "--headless", "--game", "druids2004"]
    argv += ["--seats", "human,bot:rule", "--json", "--workdir", str(tmp_path / "table")]
    env = {**os.environ, "DRUIDS_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdin is not None and proc.stderr is not None and proc.stdout is not None
    told = ""
    prompts: list[str] = []
    answers = iter(["xyzzy", "refuse"])
    selector = selectors.DefaultSelector()
    selector.register(proc.stderr, selectors.EVENT_READ)
    deadline = time.monotonic() + GAME_S
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if not selector.select(timeout=1.0):
                continue
            chunk = os.read(proc.stderr.fileno(), 65536).decode()
            if not chunk:
                break
            told += chunk
            if not told.endswith(PROMPT_END):
                continue
            prompt = told[told.rfind("you are P") :]
            prompts.append(prompt)
            legal = next(line for line in prompt.splitlines() if line.startswith("legal: "))
            answer = next(answers, "")
            if answer == "refuse":
                answer = _not_held(prompt)
            elif not answer:
                answer = legal.split()[1]
            proc.stdin.write(f"{answer}\n".encode())
            proc.stdin.flush()
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, told[-3000:]
    summary = json.loads(out)
    assert summary["finished"] and summary["aborted"] is None, summary
    assert len(summary["totals"]) == 2 and summary["winners"]
    assert "not a move: unknown move token 'xyzzy'" in told
    assert "the table refuses '" in told
    assert len(prompts) > 3
    first = prompts[0].splitlines()
    assert first[0].startswith("you are P") and sum(x.startswith("  place ") for x in first) >= 1
    assert any(x.startswith("scores: P0:") for x in first)
