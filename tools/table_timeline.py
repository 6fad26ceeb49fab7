"""Where a whole table's time goes: one ``druids bench table`` game of real peer processes, traced.

Each peer process of the game is traced from the inside (a ``sitecustomize`` this script puts on
its ``PYTHONPATH``, active only with ``DRUIDS_TRACE_DIR``): every message taken (by type; the one
that ends a round or the game apart), every own move, every poll of the mesh, fsync, send and bot
call, with its wall time and the CPU time of the peer's main thread; and each thread's CPU over
the game (the deck's helper and aside threads, ZeroMQ's). From those it prints, for all peers
together, the CPU and wall by part; each round's wall phases (keys to the first pass received,
the deal to its last shares, the owners' words to the first move, the moves, the last move to the
round's end everywhere); and the critical path of a move (mover's build, send, the next mover's
decode and take, its bot). Run it with each tree first on ``PYTHONPATH`` (version 1's too: its
modules are found under their old names) to compare them phase by phase:

    PYTHONPATH=. python3 tools/table_timeline.py [--game druids2017] [--players 4] [--rounds 5]
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from typing import Any

TRACER = r"""
import os
if os.environ.get("DRUIDS_TRACE_DIR") and os.environ.get("DRUIDS_HOME"):
    import atexit, json, threading, time
    recs = []
    mono, cpu = time.monotonic, time.thread_time
    def wrap(owner, name, kind):
        orig = getattr(owner, name)
        def w(*a, **k):
            t0, c0 = mono(), cpu()
            try:
                return orig(*a, **k)
            finally:
                recs.append((kind(a) if callable(kind) else kind, t0, mono() - t0, cpu() - c0))
        setattr(owner, name, w)
    try:
        import druids_p2p.peer.runner as R, druids_p2p.lan.mesh as M, druids_p2p.table.table as T
    except ImportError:  # version 1
        import druids_p2p.net.runner as R, druids_p2p.net.mesh as M, druids_p2p.net.table as T
    import druids_p2p.bots.host as H
    TM = T.TableMachine
    def ended(self, before, kind):
        if self.finished and not before[1]:
            return kind + "+game_end"
        return kind + "+round_end" if self.rounds_audited != before[0] else kind
    for name in ("receive", "play"):
        def make(orig, name):
            def w(self, arg):
                t0, c0, b = mono(), cpu(), (self.rounds_audited, self.finished)
                try:
                    return orig(self, arg)
                finally:
                    k = "own_move" if name == "play" else "take:" + arg.type.name
                    if k == "take:MOVE" and str(arg.body.get("move", "")).startswith("Word"):
                        k = "take:WORD"
                    recs.append((ended(self, b, k), t0, mono() - t0, cpu() - c0))
            return w
        setattr(TM, name, make(getattr(TM, name), name))
    orig_poll = M.Mesh.poll
    def poll(self, timeout_ms, limit=256):
        t0, c0 = mono(), cpu()
        out = orig_poll(self, timeout_ms, limit)
        recs.append(("poll" + ("" if out else " (none)"), t0, mono() - t0, cpu() - c0))
        return out
    M.Mesh.poll = poll
    wrap(R.TableRunner, "_on_message", "on_message")
    wrap(R.TableRunner, "_tick", "tick")
    wrap(R.TableRunner, "_play", "runner_play")
    wrap(M.Mesh, "broadcast", "send")
    wrap(H.BotRunner, "choose", "bot")
    fsync = os.fsync
    def timed_fsync(fd):
        t0, c0 = mono(), cpu()
        try:
            return fsync(fd)
        finally:
            recs.append(("fsync", t0, mono() - t0, cpu() - c0))
    os.fsync = timed_fsync
    def threads():
        names = {t.native_id: t.name for t in threading.enumerate()}
        out, tick = {}, os.sysconf("SC_CLK_TCK")
        for tid in os.listdir("/proc/self/task"):
            try:
                f = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
                comm = open(f"/proc/self/task/{tid}/comm").read().strip()
            except OSError:
                continue
            out[names.get(int(tid), comm).split("_")[0]] = (int(f[11]) + int(f[12])) / tick
        return out
    snaps = {}
    orig_event = TM._event
    def event(self, kind, text, data=None):
        recs.append(("event:" + kind, mono(), 0.0, 0.0))
        if kind == "game_over" or (kind == "round_started" and "start" not in snaps):
            snaps["start" if kind == "round_started" else "end"] = threads()
        return orig_event(self, kind, text, data)
    TM._event = event
    def dump():
        path = os.path.join(os.environ["DRUIDS_TRACE_DIR"], f"peer-{os.getpid()}.json")
        with open(path, "w") as f:
            json.dump({"recs": recs, "snaps": snaps}, f)
    atexit.register(dump)
"""

Rec = tuple[str, float, float, float]


def run_traced(args: argparse.Namespace, folder: str) -> tuple[dict[str, Any], list[list[Rec]]]:
    with open(os.path.join(folder, "sitecustomize.py"), "w") as f:
        f.write(TRACER)
    env = dict(os.environ, DRUIDS_TRACE_DIR=folder)
    env["PYTHONPATH"] = os.pathsep.join([p for p in (env.get("PYTHONPATH"), folder) if p])
    argv = [sys.executable, "-m", "druids_p2p", "bench", "table", "--json"]
    argv += ["--game", args.game, "--players", str(args.players)]
    argv += ["--rounds", str(args.rounds)] if args.rounds else []
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=True)
    peers = []
    for path in sorted(glob.glob(os.path.join(folder, "peer-*.json"))):
        with open(path) as f:
            peers.append(json.load(f))
    threads: dict[str, float] = defaultdict(float)
    for peer in peers:
        start, end = peer["snaps"].get("start", {}), peer["snaps"].get("end", {})
        for name, t in end.items():
            threads[name] += t - start.get(name, 0.0)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    summary["threads_cpu_s"] = {k: round(v, 3) for k, v in threads.items() if v > 0}
    return summary, [[tuple(r) for r in peer["recs"]] for peer in peers]


def by_part(peers: list[list[Rec]]) -> None:
    total: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for recs in peers:
        for kind, _, wall, cpu in recs:
            if not kind.startswith("event:"):
                part = total[kind]
                part[0], part[1], part[2] = part[0] + wall, part[1] + cpu, part[2] + 1
    print("all peers, by part (tick includes what it calls; CPU: each peer's main thread)")
    for kind, (wall, cpu, n) in sorted(total.items(), key=lambda x: -x[1][1]):
        if cpu > 0.002:
            print(f"  {kind:28} n={n:5}  CPU {cpu * 1e3:8.1f} ms ({cpu / n * 1e3:6.3f} each)"
                  f"  wall {wall * 1e3:8.1f} ms")  # fmt: skip


def rounds(peers: list[list[Rec]]) -> None:
    merged = sorted((t, kind, wall) for recs in peers for kind, t, wall, _ in recs)
    n = len(peers)
    starts = [t for t, k, _ in merged if k == "event:round_started"]
    ends = [t for t, k, _ in merged if k == "event:round_ended"]
    deal_kinds = ("take:TABLE_SHARES", "take:DECK_SHARES", "take:DECK_SALT")
    print("each round's wall phases (ms), the first peer's start to the last peer's end")
    totals: dict[str, float] = defaultdict(float)
    for r in range(len(ends) // n):
        t0, t1 = starts[r * n], ends[r * n + n - 1]
        inside = [(t, k, w) for t, k, w in merged if t0 <= t <= t1]
        shuffles = [t for t, k, _ in inside if "SHUFFLE" in k]
        shares = max(t + w for t, k, w in inside if k in deal_kinds)
        moves = [t for t, k, _ in inside if k.startswith("own_move")]
        phases = {
            "keys, first pass": min(shuffles) - t0,
            "deal": shares - min(shuffles),
            "words": moves[0] - shares,
            "moves": moves[-1] - moves[0],
            "end": t1 - moves[-1],
        }
        totals["n moves"] += len(moves)
        for name, v in phases.items():
            totals[name] += v
        print(f"  round {r + 1}: " + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in phases.items())
              + f" ({len(moves)} moves)")  # fmt: skip
    count = max(1.0, totals.pop("n moves") - len(ends) // n)
    print("  total: " + ", ".join(f"{k} {v * 1e3:.0f}" for k, v in totals.items())
          + f"; {totals['moves'] * 1e3 / count:.2f} ms a move")  # fmt: skip


def critical_path(peers: list[list[Rec]]) -> None:
    """Each move to the next one: the mover's build, its send, the next mover's taking, its bot."""
    moves = sorted((t, i, w, k) for i, recs in enumerate(peers) for k, t, w, _ in recs
                   if k.startswith("own_move"))  # fmt: skip
    parts: dict[str, list[float]] = defaultdict(list)
    for (t_a, i, w_a, k_a), (t_b, j, _, _) in itertools.pairwise(moves):
        if "+" in k_a or i == j or t_b - t_a > 0.5:
            continue
        took = [r for r in peers[j] if r[0].startswith("take:") and t_a <= r[1] <= t_b]
        bots = [r for r in peers[j] if r[0] == "bot" and t_a <= r[1] <= t_b]
        if not took or not bots:
            continue
        parts["whole move"].append(t_b - t_a)
        parts["mover builds"].append(w_a)
        parts["next mover takes it (from build's end)"].append(took[0][1] + took[0][2] - t_a - w_a)
        parts["next mover's bot"].append(bots[-1][2])
    print("a move's critical path (ms; median, p90)")
    for name, values in parts.items():
        ordered = sorted(values)
        p90 = ordered[int(0.9 * len(ordered))]
        print(f"  {name:40} {statistics.median(values) * 1e3:7.3f} {p90 * 1e3:7.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="druids2017")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.game != "druids2017":
        args.rounds = 0
    with tempfile.TemporaryDirectory(prefix="druids-timeline-") as folder:
        summary, peers = run_traced(args, folder)
    print(json.dumps({k: summary.get(k) for k in ("game_s", "deal_ms", "peer_cpu_s",
                      "moves_measured", "threads_cpu_s")}))  # fmt: skip
    by_part(peers)
    if args.game == "druids2017":
        rounds(peers)
    critical_path(peers)


if __name__ == "__main__":
    main()
