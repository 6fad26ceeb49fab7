"""The Dask backend on a real loopback cluster: a scheduler and two workers, separate processes.

Everything binds 127.0.0.1 (``LoopbackCluster``), without a dashboard; the cluster is torn down
whatever happens (a module fixture around a context manager).
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_harness import run_cli

from druids_p2p.bench.costs import LoopbackCluster
from druids_p2p.plugins import BotRegistry, load_bots, register_plugin, unregister_plugin
from druids_p2p.tournament import TIMING_KEYS, TournamentConfig, TournamentError, run_tournament

PLUGIN = """
import os
from druids_p2p.bots.host import Bot
from druids_p2p.hookspecs import hookimpl

MARKER = {marker!r}

class First(Bot):
    def choose(self, view):
        return view.legal[0]

class Dier(Bot):
    '''Takes its worker process down the first time it plays anywhere, then plays like First.'''
    def choose(self, view):
        if not os.path.exists(MARKER):
            open(MARKER, "w").close()
            os._exit(3)
        return view.legal[0]

@hookimpl
def druids_register_bots(register):
    register(name="first", factory=First, version="2.0")
    register(name="dier", factory=Dier, version="0.1")
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[LoopbackCluster]:
    with LoopbackCluster(workers=2) as c:
        yield c


@pytest.fixture
def plugin(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "plugins"  # a folder the workers do not have: the file must be shipped
    folder.mkdir()
    marker = tmp_path / "died-once"
    (folder / "clusterbots.py").write_text(textwrap.dedent(PLUGIN.format(marker=str(marker))))
    return folder, marker


def registry_of(folder: Path) -> BotRegistry:
    return load_bots([folder], default_dirs=False, entry_points=False)


def config_for(
    registry: BotRegistry, bots: tuple[str, ...], games: int, time_per_move_ms: float = 10.0
) -> TournamentConfig:
    return TournamentConfig(
        bots=bots,
        versions=tuple(registry.get(b).version for b in bots),
        players=3,
        games=games,
        seed=11,
        time_per_move_ms=time_per_move_ms,
    )


def strip(folder: Path) -> list[dict[str, Any]]:
    lines = [json.loads(t) for t in (folder / "games.jsonl").read_text().splitlines()]
    return [{k: v for k, v in line.items() if k not in TIMING_KEYS} for line in lines]


def test_every_cluster_process_listens_on_loopback_only(cluster: LoopbackCluster) -> None:
    import psutil

    listening = []
    for proc in cluster.procs:
        family = [psutil.Process(proc.pid)]
        family += family[0].children(recursive=True)
        for p in family:
            for conn in p.net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN:
                    listening.append(conn.laddr)
    assert len(listening) >= 1 + 2 * 2  # the scheduler; each worker and its nanny
    assert {addr.ip for addr in listening} == {"127.0.0.1"}, listening


def test_a_cluster_run_writes_the_games_of_a_local_run_and_resumes_across_backends(
    cluster: LoopbackCluster, plugin: tuple[Path, Path], tmp_path: Path
) -> None:
    registry = registry_of(plugin[0])
    config = config_for(registry, ("rule", "random", "first"), 30)
    local = run_tournament(config, registry, tmp_path / "local", workers=2)
    remote = run_tournament(config, registry, tmp_path / "remote", cluster=cluster.address)
    assert len(remote.lines) == 30 and [line["index"] for line in remote.lines] == list(range(30))
    assert strip(tmp_path / "remote") == strip(tmp_path / "local")
    assert remote.summary.as_dict() == local.summary.as_dict()
    # Half locally, the rest on the cluster; and the other way round.
    part = run_tournament(config, registry, tmp_path / "a", workers=1, stop_after=7)
    assert part.interrupted
    run_tournament(config, registry, tmp_path / "a", resume=True, cluster=cluster.address)
    assert strip(tmp_path / "a") == strip(tmp_path / "local")
    part = run_tournament(
        config, registry, tmp_path / "b", cluster=cluster.address, stop_after=5, batch_games=2
    )
    assert part.interrupted and len(part.lines) < 30
    run_tournament(config, registry, tmp_path / "b", workers=2, resume=True)
    assert strip(tmp_path / "b") == strip(tmp_path / "local")


def test_a_lost_workers_batch_is_rerun_and_counted_once(
    cluster: LoopbackCluster, plugin: tuple[Path, Path], tmp_path: Path
) -> None:
    folder, marker = plugin
    registry = registry_of(folder)
    # three times the budget of the others: a loaded machine (the suite on -n 3) once made a
    # bot overrun 10 ms here, and every game is to end "ok"
    config = config_for(registry, ("dier", "random", "rule"), 9, time_per_move_ms=30.0)
    remote = run_tournament(config, registry, tmp_path / "remote", cluster=cluster.address)
    assert marker.exists()  # a worker process did die in the middle of a batch
    assert [line["index"] for line in remote.lines] == list(range(9))
    indices = [json.loads(t)["index"] for t in (tmp_path / "remote" / "games.jsonl").open()]
    assert sorted(indices) == list(range(9))  # each game once
    assert {line["status"] for line in remote.lines} == {"ok"}
    local = run_tournament(config, registry, tmp_path / "local", workers=2)  # marker set: no death
    assert strip(tmp_path / "remote") == strip(tmp_path / "local")
    assert remote.summary.as_dict() == local.summary.as_dict()


class _Unshippable:
    """A plugin registered in-process: there is no file to ship, so the workers lack it."""

    from druids_p2p.hookspecs import hookimpl

    @hookimpl
    def druids_register_bots(self, register: Any) -> None:
        from druids_p2p.games.druids2017.rule_bot import RuleBot

        register(name="homemade", factory=RuleBot, version="9")


def test_a_worker_lacking_a_bot_says_so_in_one_line(
    cluster: LoopbackCluster, tmp_path: Path
) -> None:
    register_plugin(_Unshippable(), "unshippable")
    try:
        registry = load_bots([], default_dirs=False, entry_points=False)
    finally:
        unregister_plugin("unshippable")
    config = config_for(registry, ("homemade", "random", "rule"), 3)
    with pytest.raises(TournamentError) as caught:
        run_tournament(config, registry, tmp_path / "r", cluster=cluster.address)
    text = str(caught.value)
    assert "lacks bot 'homemade'" in text and "\n" not in text


def test_the_cluster_on_the_command_line(
    cluster: LoopbackCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "--bots", "rule,random,random", "--games", "3000", "--seed", "1"]
    args += ["--sprt", "0,100,0.05,0.05", "--json"]
    code, local, err = run_cli([*args, "--out", str(tmp_path / "l")], capsys)
    assert code == 0, err
    code, remote, err = run_cli(
        [*args, "--out", str(tmp_path / "r"), "--cluster", cluster.address], capsys
    )
    assert code == 0, err
    assert json.loads(remote) == json.loads(local)  # the SPRT stopped at the same deal
    assert strip(tmp_path / "r") == strip(tmp_path / "l")


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("localhost:8786", "give the scheduler as tcp://HOST:PORT"),
        ("tcp://127.0.0.1:1", "cannot reach the Dask scheduler"),
    ],
)
def test_bad_cluster_addresses_are_one_line_errors(
    address: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    import druids_p2p.tournament.cluster as backend

    monkeypatch.setattr(backend, "CONNECT_TIMEOUT_S", 2.0)
    args = ["tournament", "--bots", "rule,random", "--out", str(tmp_path / "o")]
    code, stdout, err = run_cli([*args, "--cluster", address], capsys)
    assert code == 2 and stdout == ""
    assert len(err.strip().splitlines()) == 1, err
    assert message in err


def test_without_dask_cluster_says_how_to_install_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises
    args = ["tournament", "--bots", "rule,random", "--out", str(tmp_path / "o")]
    code, _, err = run_cli([*args, "--cluster", "tcp://127.0.0.1:8786"], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "pip install 'druids-p2p[cluster]'" in err


def test_bench_tournament_on_a_cluster(
    cluster: LoopbackCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    client_of: Any = importlib.import_module("distributed").Client  # untyped (bench/costs.py)
    # An earlier test of this module killed a worker process mid-batch; its nanny starts it
    # again, which on a loaded machine may still be under way: the bench counts who is there.
    with client_of(cluster.address, timeout=60) as client:
        client.wait_for_workers(cluster.workers, timeout=120)
    args = ["bench", "tournament", "--games", "96", "--batch-games", "16", "--json"]
    code, stdout, err = run_cli([*args, "--cluster", cluster.address], capsys)
    assert code == 0, err
    document = json.loads(stdout)
    (run,) = document["runs"]
    assert (run["workers"], run["threads"], run["games"]) == (2, 2, 96)
    assert (run["batches"], run["batch_games"]) == (6, 16)
    assert run["games_per_s"] > 0 and run["noop_task_ms"] > 0
    assert run["overhead_ms_per_batch"] >= 0 and run["game_ms_mean"] > 0
    code, _, err = run_cli(["bench", "tournament", "--cluster", "loopback:0"], capsys)
    assert code == 2 and "loopback worker counts" in err and len(err.strip().splitlines()) == 1


CRASHER = """
import os
from druids_p2p.bots.host import Bot
from druids_p2p.hookspecs import hookimpl

class Crasher(Bot):
    def choose(self, view):
        os._exit(4)

@hookimpl
def druids_register_bots(register):
    register(name="crasher", factory=Crasher, version="0.2")
"""


@pytest.mark.slow
def test_a_batch_that_keeps_killing_workers_is_split_then_recorded_crashed_once(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "crash.py").write_text(textwrap.dedent(CRASHER))
    registry = registry_of(folder)
    config = config_for(registry, ("crasher", "random", "rule"), 3)
    env = dict(__import__("os").environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0")
    with LoopbackCluster(workers=2, env=env) as c:
        result = run_tournament(config, registry, tmp_path / "r", cluster=c.address, batch_games=3)
    assert [line["index"] for line in result.lines] == [0, 1, 2]
    assert {line["status"] for line in result.lines} == {"crashed"}
    assert {line["blame"] for line in result.lines} == {None}
    assert all("worker died every time" in line["faults"][0]["text"] for line in result.lines)
    assert len((tmp_path / "r" / "games.jsonl").read_text().splitlines()) == 3
