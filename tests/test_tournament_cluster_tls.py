"""``--cluster tls://…`` with the user's certificates (issue 27, item 9), on a real TLS cluster:
a ``dask scheduler`` and a ``dask worker`` on 127.0.0.1 speaking only TLS, with a CA and a
certificate made for the test (tests/tls_certs.py). A tournament with a shipped plugin bot runs
through the command line with ``--tls-ca/--tls-cert/--tls-key`` and writes the games of a local
run; with certificates of another CA, or none, the client cannot reach the scheduler (one line,
exit 2).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli
from tls_certs import make_tls_files

from druids_p2p.bench.costs import LoopbackCluster
from druids_p2p.tournament import TIMING_KEYS
from druids_p2p.tournament.cluster import ClusterTLS

pytestmark = pytest.mark.slow

PLUGIN = """
from druids_p2p.bots.host import Bot
from druids_p2p.hookspecs import hookimpl

class Last(Bot):
    def choose(self, view):
        return view.legal[-1]

@hookimpl
def druids_register_bots(register):
    register(name="last", factory=Last, version="1.0")
"""


def _games(folder: Path) -> list[dict[str, Any]]:
    lines = [json.loads(t) for t in (folder / "games.jsonl").read_text().splitlines()]
    return [{k: v for k, v in line.items() if k not in TIMING_KEYS} for line in lines]


def test_a_tournament_over_tls_with_the_users_certificates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import druids_p2p.tournament.cluster as backend

    ca, cert, key = make_tls_files(tmp_path)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "lastbot.py").write_text(textwrap.dedent(PLUGIN))
    args = ["tournament", "--bots", "rule,random,last", "--games", "6", "--seed", "3"]
    args += ["--plugins-dir", str(plugins), "--json"]
    code, local, err = run_cli([*args, "--out", str(tmp_path / "local")], capsys)
    assert code == 0, err
    with LoopbackCluster(workers=1, tls=ClusterTLS(ca, cert, key)) as cluster:
        assert cluster.address.startswith("tls://127.0.0.1:")
        tls = ["--tls-ca", str(ca), "--tls-cert", str(cert), "--tls-key", str(key)]
        code, remote, err = run_cli(
            [*args, "--out", str(tmp_path / "tls"), "--cluster", cluster.address, *tls], capsys
        )
        assert code == 0, err
        assert "warning" not in err
        assert json.loads(remote) == json.loads(local)
        assert _games(tmp_path / "tls") == _games(tmp_path / "local")
        # Certificates the scheduler's CA did not sign: the handshake fails, one line.
        other = tmp_path / "other"
        other.mkdir()
        ca2, cert2, key2 = make_tls_files(other)
        monkeypatch.setattr(backend, "CONNECT_TIMEOUT_S", 3.0)
        wrong = ["--tls-ca", str(ca2), "--tls-cert", str(cert2), "--tls-key", str(key2)]
        code, _, err = run_cli(
            [*args, "--out", str(tmp_path / "wrong"), "--cluster", cluster.address, *wrong],
            capsys,
        )
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert f"cannot reach the Dask scheduler at {cluster.address}" in err
        code, _, err = run_cli(
            [*args, "--out", str(tmp_path / "bare"), "--cluster", cluster.address], capsys
        )
        assert code == 2 and "needs --tls-ca" in err and len(err.strip().splitlines()) == 1
