"""A record of another protocol version gets one line naming it, never a judgement (issue 29).

Version 2 plays every game at the mental card table; a version-1 record (the dealt deck's
messages, types 10-16, 21, 22) cannot be read by its rules, which would call its every message
malformed. So ``druids audit`` and ``druids replay`` read the version its first message claims
(the signed part's first field, before anything else) and refuse the record by name, exit 2.
The records here are written as a version-1 peer signed them: the same envelope and signature
(wire.md §2), the version field 1, version 1's message types and bodies.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cli_harness import run_cli
from sample_table import sign_fields

from druids_p2p.lan.seating import seat_order
from druids_p2p.wire import PROTOCOL_VERSION, Identity, MsgType, derive_table_id, message_hash
from druids_p2p.wire.envelope import claimed_version, head0, next_head, verify_signature
from druids_p2p.wire.msgtypes import MSG_DOMAIN
from druids_p2p.wire.record import RecordWriter

IDS = [Identity.from_seed(bytes([i]) * 32, name) for i, name in enumerate(("ann", "bo", "cy"))]
KEYS = [i.public_key for i in IDS]


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def _record(path: Path, version: int, later: int | None = None) -> list[bytes]:
    """A table's first messages as a peer of protocol ``version`` signs them: the seat message,
    every seat's confirmation and nonce, then version 1's first dealt-deck step, every seat's
    ``deck_commit`` (type 10) in play order: what a version-1 peer's audit finds valid so far
    (a game cut short). ``later``: every message after the seat message claims this
    version instead (a record of ours with another version's message in it)."""
    options = {"players": 3, "rounds": 5, "variant": False}  # version 1: no "ruleset"
    nonce = _h("nonce")
    table_id = derive_table_id(KEYS, options, nonce)
    head, raws = head0(table_id), list[bytes]()
    prev = {k: bytes(32) for k in KEYS}
    seq = dict.fromkeys(KEYS, 0)

    def step(msg_type: int, bodies: dict[int, dict[str, Any]]) -> None:
        """One step of the schedule: every message of it built on the head before it."""
        nonlocal head
        at = head
        for seat, body in bodies.items():
            key = KEYS[seat]
            v = version if not raws or later is None else later
            raw = sign_fields(
                IDS[seat], [v, msg_type, table_id, key, seq[key], prev[key], at, body]
            )
            raws.append(raw)
            prev[key], seq[key] = message_hash(raw), seq[key] + 1
            head = next_head(head, message_hash(raw))

    names = ["ann", "bo", "cy"]
    step(3, {0: {"names": names, "nonce": nonce, "options": options, "seats": KEYS}})
    confirms = {}
    for s in range(3):
        commit = hashlib.sha256(_h(f"seat nonce {s}")).digest()
        endpoint = f"tcp://127.0.0.1:{5000 + s}"
        confirms[s] = {"commit": commit, "curve": _h(f"curve {s}"), "endpoint": endpoint}
    step(4, confirms)
    step(5, {s: {"nonce": _h(f"seat nonce {s}")} for s in range(3)})
    order = seat_order(table_id, KEYS, {k: _h(f"seat nonce {s}") for s, k in enumerate(KEYS)})
    step(10, {KEYS.index(k): {"commit": _h(f"deck commit {k.hex()}"), "round": 0} for k in order})
    writer = RecordWriter.create(path)
    for raw in raws:
        writer.append(raw)
    writer.close()
    return raws


def _druids(*args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as home:  # never the user's real identity folder
        return subprocess.run(
            [sys.executable, "-m", "druids_p2p", *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "DRUIDS_HOME": home},
        )


def _refusal(path: Path, verb: str, version: int = 1, other: str = "an older") -> str:
    return (
        f"{path}: a protocol version {version} record (this druids-p2p reads version "
        f"{PROTOCOL_VERSION}; {other} druids-p2p {verb} it)"
    )


def test_the_record_is_version_1_as_a_version_1_peer_wrote_it(tmp_path: Path) -> None:
    """What the refusals below read: version 1's types, gone from this version's."""
    raws = _record(tmp_path / "v1.druids", 1)
    assert PROTOCOL_VERSION == 2 and {10, 22}.isdisjoint(set(MsgType))
    for raw in raws:  # each one signed by its sender over version 1's fields
        signed, signature = msgpack.unpackb(raw)
        fields = msgpack.unpackb(signed)
        assert fields[0] == claimed_version(raw) == 1
        verify_signature(fields[3], MSG_DOMAIN + signed, signature, "v1")
    assert [msgpack.unpackb(msgpack.unpackb(r)[0])[1] for r in raws] == [3, 4, 4, 4, 5, 5, 5] + [
        10
    ] * 3


def test_druids_audit_refuses_a_version_1_record_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "v1.druids"
    _record(path, 1)
    done = _druids("audit", str(path))
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [f"druids: error: {_refusal(path, 'audits')}"]
    assert "Traceback" not in done.stderr


def test_druids_audit_json_says_unreadable_naming_the_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "v1.druids"
    _record(path, 1)
    code, out, _ = run_cli(["audit", str(path), "--json"], capsys)
    report = json.loads(out)
    assert code == 2 and report["ok"] is False and report["verdict"] == "unreadable"
    assert f"{path}: {report['error']}" == _refusal(path, "audits")


def test_druids_replay_refuses_a_version_1_record_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "v1.druids"
    _record(path, 1)
    for extra in ([], ["--json"]):
        code, out, err = run_cli(["replay", str(path), *extra], capsys)
        assert code == 2 and out == ""
        assert err.splitlines() == [f"druids: error: {_refusal(path, 'replays')}"]


def test_a_newer_record_is_refused_as_newer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "v3.druids"
    _record(path, 3)
    code, _, err = run_cli(["audit", str(path)], capsys)
    assert code == 2
    assert err.splitlines() == [f"druids: error: {_refusal(path, 'audits', 3, 'a newer')}"]


def test_a_version_2_record_holding_a_version_1_message_is_invalid_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The record's version is its first message's: a message of another version later in a
    record of ours is that message's fault (invalid, exit 1, naming it), not a refusal."""
    path = tmp_path / "mixed.druids"
    _record(path, 2, later=1)
    code, out, _ = run_cli(["audit", str(path), "--json"], capsys)
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "invalid" and report["message_index"] == 1
    assert "unsupported protocol version 1 (this peer speaks 2)" in report["error"]
