"""One name for one thing on the command line: ``druids --version``, and the beacon port called
``--beacon-port`` by every command that listens for or sends beacons (``tables`` called it
``--port``, kept as a hidden alias that says its new name)."""

from __future__ import annotations

import importlib.metadata
import socket

import pytest
from cli_harness import run_cli


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_version_prints_the_installed_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--version"], capsys)
    assert code == 0, err
    assert out == f"druids {importlib.metadata.version('druids-p2p')}\n"


@pytest.mark.parametrize("command", ["host", "join", "tables", "play"])
def test_every_command_calls_the_beacon_port_beacon_port(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli([command, "--help"], capsys)
    assert code == 0
    assert "--beacon-port" in out
    assert "--port " not in out and "--port," not in out  # the old name is hidden


def test_tables_listens_on_the_beacon_port(capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_udp_port()
    code, out, err = run_cli(["tables", "--beacon-port", str(port), "--seconds", "0.2"], capsys)
    assert code == 0, err
    assert f":{port})" in out and "no open tables heard" in out


def test_tables_old_port_name_still_works_and_says_the_new_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = _free_udp_port()
    code, out, err = run_cli(["tables", "--port", str(port), "--seconds", "0.2"], capsys)
    assert code == 0, err
    assert f":{port})" in out
    assert err.strip() == "druids: note: --port is now called --beacon-port"


def test_join_listens_for_seconds_as_tables_does(capsys: pytest.CaptureFixture[str]) -> None:
    """One name for one option: how long to listen for beacons is ``--seconds`` in ``tables``
    and ``join``; join's old ``--search-seconds`` still works, hidden, and says the new name."""
    code, out, _ = run_cli(["join", "--help"], capsys)
    assert code == 0 and "--seconds" in out and "--search-seconds" not in out
    port = str(_free_udp_port())
    code, _, err = run_cli(
        ["join", "nobody-here", "--beacon-port", port, "--seconds", "0.2"], capsys
    )
    assert code == 1 and "no open table named 'nobody-here'" in err, err
    old = ["join", "nobody-here", "--beacon-port", port, "--search-seconds", "0.2"]
    code, _, err = run_cli(old, capsys)
    assert code == 1 and "--search-seconds is now called --seconds" in err, err
    code, _, err = run_cli([*old, "--seconds", "0.2"], capsys)
    assert code == 2 and "give only --seconds" in err, err
