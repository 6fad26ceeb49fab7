"""A cluster worker runs only what its tournament shipped (issue 27, item 9).

The worker's half of shipping (``worker_registry``) is called here in this process, as a Dask
worker calls it: shipped plugin files go to a private folder made fresh, each is checked against
the SHA-256 the client computed before anything is imported, and only those files are imported.
A file another local user planted in the old predictable folder of the shared temp dir is never
imported. And the client's side: ``--cluster`` over plain TCP to another machine warns and points
at TLS (only the warning's logic and its printing: nothing connects anywhere), and the TLS
options are checked and given to Dask (``Security``). A real TLS cluster on 127.0.0.1 is
tests/test_tournament_cluster_tls.py.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli

import druids_p2p.tournament.cluster as cluster
from druids_p2p import __version__
from druids_p2p.plugins import BotRegistry, load_bots
from druids_p2p.tournament.cluster import (
    ClusterTLS,
    ShippedFile,
    plain_tcp_warning,
    plugin_files,
    tls_problem,
    worker_registry,
)
from druids_p2p.tournament.config import TournamentError

SHIPPED = """
from druids_p2p.bots.host import Bot
from druids_p2p.hookspecs import hookimpl

class First(Bot):
    def choose(self, view):
        return view.legal[0]

@hookimpl
def druids_register_bots(register):
    register(name="first", factory=First, version="2.0")
"""

PLANTED = """
from druids_p2p.bots.host import Bot
from druids_p2p.hookspecs import hookimpl

open({marker!r}, "w").close()  # what a planted file runs the moment it is imported

class Planted(Bot):
    def choose(self, view):
        return view.legal[0]

@hookimpl
def druids_register_bots(register):
    register(name="planted", factory=Planted, version="6.6")
"""


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The files a client ships for bot ``first``; the worker's temp dir is private to the test
    and its cache of loaded registries empty."""
    folder = tmp_path / "client-plugins"
    folder.mkdir()
    (folder / "firstbot.py").write_text(textwrap.dedent(SHIPPED))
    registry = load_bots([folder], default_dirs=False, entry_points=False)
    temp = tmp_path / "shared-tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(cluster, "_REGISTRIES", {})
    return plugin_files(registry, ("first", "rule"))


def _imported(registry: BotRegistry) -> set[str]:
    return {name for name in registry.names() if name in ("first", "planted")}


def test_a_file_planted_in_the_old_predictable_folder_is_not_imported(
    shipped: tuple[Any, ...], tmp_path: Path
) -> None:
    marker = tmp_path / "planted-ran"
    key = hashlib.sha256(repr(shipped).encode()).hexdigest()
    old = Path(tempfile.gettempdir()) / f"druids-shipped-{os.getpid()}-{key[:16]}"
    old.mkdir(mode=0o777)  # another local user made it first, writable
    (old / "planted.py").write_text(textwrap.dedent(PLANTED.format(marker=str(marker))))
    registry = worker_registry(shipped)
    assert _imported(registry) == {"first"}
    assert not marker.exists()


def test_shipped_files_go_to_a_fresh_private_folder_and_only_they_are_imported(
    shipped: tuple[Any, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "extra-ran"
    made: list[Path] = []
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp_and_plant(*args: Any, **kwargs: Any) -> str:
        folder: str = real_mkdtemp(*args, **kwargs)
        made.append(Path(folder))  # a file in the folder that was not shipped: never imported
        (Path(folder) / "extra.py").write_text(textwrap.dedent(PLANTED.format(marker=str(marker))))
        return folder

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp_and_plant)
    registry = worker_registry(shipped)
    assert _imported(registry) == {"first"} and not marker.exists()
    source = Path(registry.get("first").source.removeprefix("file "))
    assert made == [source.parent]
    assert stat.S_IMODE(source.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(source.stat().st_mode) == 0o600
    assert worker_registry(shipped) is registry  # loaded once per worker and set of files
    assert made == [source.parent]


def test_a_shipped_file_altered_after_hashing_is_refused(shipped: tuple[Any, ...]) -> None:
    (file,) = shipped
    assert file.sha256 == hashlib.sha256(file.text.encode()).hexdigest()
    altered = file._replace(text=file.text + "\nimport os; os.system('true')\n")
    with pytest.raises(RuntimeError) as caught:
        worker_registry((altered,))
    text = str(caught.value)
    assert text.startswith(cluster.WORKER_ERROR) and "\n" not in text
    assert "'firstbot.py'" in text and "does not match its SHA-256" in text
    for name in ("../firstbot.py", "sub/firstbot.py", "firstbot.txt", ".py"):
        with pytest.raises(RuntimeError, match="not a plugin file name"):
            worker_registry((file._replace(name=name),))
    assert cluster._REGISTRIES == {}  # nothing refused was ever loaded


def test_a_run_on_a_worker_that_refuses_a_file_is_one_line() -> None:
    bad = ShippedFile("x.py", "print(1)\n", "0" * 64)
    with pytest.raises(RuntimeError, match=r"druids worker: .* 'x\.py': it does not match"):
        cluster.play_cluster_batch(None, (bad,), (), __version__)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- plain TCP and TLS
@pytest.mark.parametrize(
    ("address", "warns"),
    [
        ("tcp://10.0.0.2:8786", True),
        ("tcp://192.168.1.20:8786", True),
        ("tcp://scheduler.lan:8786", True),
        ("tcp://[2001:db8::1]:8786", True),
        ("tcp://127.0.0.1:8786", False),
        ("tcp://127.8.9.10:8786", False),
        ("tcp://localhost:8786", False),
        ("tcp://[::1]:8786", False),
        ("tls://10.0.0.2:8786", False),
    ],
)
def test_plain_tcp_to_another_machine_warns_and_points_at_tls(address: str, warns: bool) -> None:
    warning = plain_tcp_warning(address)
    if not warns:
        assert warning is None
        return
    assert warning is not None and address in warning and "\n" not in warning
    assert "tls://" in warning and "--tls-ca" in warning


def test_the_warning_is_printed_when_the_run_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cluster backend is replaced: the command line warns, then runs, and nothing connects
    to the (documentation-range) address."""
    asked: list[tuple[str, Any]] = []

    def no_cluster(address: str, *args: Any, tls: Any = None) -> None:
        asked.append((address, tls))
        raise TournamentError("not connected (test)")

    monkeypatch.setattr(cluster, "play_on_cluster", no_cluster)
    args = ["tournament", "--bots", "rule,random", "--games", "3", "--out", str(tmp_path / "o")]
    code, _, err = run_cli([*args, "--cluster", "tcp://192.0.2.7:8786"], capsys)
    assert code == 2 and asked == [("tcp://192.0.2.7:8786", None)]
    lines = err.strip().splitlines()
    assert lines[0].startswith("warning: --cluster tcp://192.0.2.7:8786 is plain TCP")
    assert lines[-1].endswith("error: not connected (test)") and len(lines) == 2
    args[-1] = str(tmp_path / "o2")
    code, _, err = run_cli([*args, "--cluster", "tcp://127.0.0.1:8786"], capsys)
    assert code == 2 and "warning:" not in err and len(asked) == 2  # loopback: no warning


def _pem(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_text("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
    return path


def test_tls_files_go_to_dask_security(tmp_path: Path) -> None:
    ca, cert, key = (_pem(tmp_path, n) for n in ("ca.pem", "me.pem", "me.key"))
    security = ClusterTLS(ca, cert, key).security()
    assert security.tls_ca_file == str(ca)
    assert (security.tls_client_cert, security.tls_client_key) == (str(cert), str(key))
    assert security.require_encryption is True
    in_one = ClusterTLS(ca, cert).security()  # the key in the certificate's file
    assert (in_one.tls_client_cert, in_one.tls_client_key) == (str(cert), None)


def test_tls_options_are_checked(tmp_path: Path) -> None:
    ca, cert, key = (_pem(tmp_path, n) for n in ("ca.pem", "me.pem", "me.key"))
    assert tls_problem("tls://10.0.0.2:8786", ClusterTLS(ca, cert, key)) is None
    assert "needs --tls-ca" in str(tls_problem("tls://10.0.0.2:8786", None))
    config: Any = __import__("dask").config
    tls_config = {"distributed.comm.tls.ca-file": str(ca)}
    tls_config["distributed.comm.tls.client.cert"] = str(cert)
    with config.set(tls_config):
        assert tls_problem("tls://10.0.0.2:8786", None) is None  # Dask's configuration
    assert tls_problem("tcp://10.0.0.2:8786", None) is None
    assert "go with --cluster tls://" in str(tls_problem("tcp://10.0.0.2:8786", ClusterTLS(ca)))
    assert tls_problem("tls://h:1", ClusterTLS(ca, cert)) is None
    for partial in (ClusterTLS(ca), ClusterTLS(None, cert, key), ClusterTLS(ca, None, key)):
        assert "takes --tls-ca and --tls-cert together" in str(tls_problem("tls://h:1", partial))
    missing = tmp_path / "nope.pem"
    no_file = tls_problem("tls://h:1", ClusterTLS(missing, cert))
    assert no_file == f"--tls-ca {missing}: no such file"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cluster", "tcp://127.0.0.1:1", "--tls-ca", "{ca}"], "go with --cluster tls://"),
        (["--tls-ca", "{ca}"], "go with --cluster tls://"),
        (["--cluster", "tls://127.0.0.1:1", "--tls-cert", "{ca}"], "--tls-ca and --tls-cert"),
        (["--cluster", "tls://127.0.0.1:1"], "needs --tls-ca, --tls-cert and --tls-key"),
        (
            ["--cluster", "tls://127.0.0.1:1", "--tls-ca", "{tmp}/none.pem", "--tls-cert", "{ca}"],
            "no such file",
        ),
    ],
)
def test_bad_tls_options_are_one_line_errors(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ca = _pem(tmp_path, "ca.pem")
    args = ["tournament", "--bots", "rule,random", "--out", str(tmp_path / "o")]
    extra = [e.format(ca=ca, tmp=tmp_path) for e in extra]
    code, stdout, err = run_cli([*args, *extra], capsys)
    assert code == 2 and stdout == "", err
    assert len(err.strip().splitlines()) == 1 and message in err, err
