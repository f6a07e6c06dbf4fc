"""What one version costs the learning service's writer, in process (no HTTP, no load generator):
the 20 Newsgroups TextClassifier of benchmarks/serve.py and the learn load of its ``--learn`` run
(requests of 10 test posts cut to 1,000 characters). For each of ``--groups`` updates:

- ``count``: the request's own tokenising and counting (``Learner.count``; in the service it
  runs in the request);
- ``group``: the writer's work for a group of ``--per-group`` requests (``Learner._apply_group``:
  the new version, the log record, the fsync, publishing), wall time in the writer thread;
- ``stall``: while the writer runs, a ticker thread sleeping 0.2 ms at a time records how late
  each wake-up is (the longest and the 99th percentile): how long the writer keeps the GIL
  from a thread that wants it, as the event loop wants it between predictions.

``--mixed S`` then predicts in a thread for S seconds alone and S seconds while requests of 10
posts are submitted at ``--rate`` per second to the learner's own writer thread (its ``--pace``
and ``--window``, ``--publish-every``), and prints the versions published, the writer's CPU per
request (its groups and its publishes) and the part of it spent outside the compiled kernels
(holding the GIL: what the event loop waits for). The first part (``group``) builds a version per
group only with ``--publish-every 0``; otherwise a group is logged and acknowledged and its
version built at the next publish.

    python benchmarks/serve_writer.py [--groups 200] [--per-group 1] [--train-docs N]
    python benchmarks/serve_writer.py --groups 5 --mixed 5 [--rate 100] [--window 0.05] [--publish-every 0.1]
"""

from __future__ import annotations

import argparse
import gzip
import inspect
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("NBAYES_DATA") or HERE.parents[1] / "shared" / "data")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class Ticker:
    """A thread waking every ``period`` s: how late each wake-up was (s)."""

    def __init__(self, period: float = 2e-4) -> None:
        self.period = period
        self.late: list[float] = []
        self.on = False
        self._stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop:
            t0 = time.perf_counter()
            time.sleep(self.period)
            if self.on:
                self.late.append(time.perf_counter() - t0 - self.period)

    def stop(self) -> None:
        self._stop = True
        self.thread.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", type=int, default=200)
    ap.add_argument("--per-group", type=int, default=1, help="requests of 10 posts per group")
    ap.add_argument("--train-docs", type=int, default=None)
    ap.add_argument("--profile", help="write a cProfile of the groups to this file")
    ap.add_argument("--mixed", type=float, default=0.0,
                    help="then S seconds of predictions in a thread alone, and S seconds while requests of 10 "
                         "posts are submitted at --rate per second to the learner's own writer thread")
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--pace", type=float, default=0.0, help="the learner's pace (0, the service's default: none)")
    ap.add_argument("--window", type=float, default=None,
                    help="the learner's group publish window in s (default: its own; 0: none)")
    ap.add_argument("--publish-every", type=float, default=None,
                    help="the learner's publish interval in s (default: its own; 0: a version per group)")
    ap.add_argument("--switch", type=float, default=None, help="sys.setswitchinterval (s)")
    args = ap.parse_args()
    if args.switch:
        sys.setswitchinterval(args.switch)

    import nbayes
    from nbayes.serve._learn import LEARN, Job, Learner
    from nbayes.serve._model import ModelHolder

    rows = read_jsonl(DATA / "20newsgroups" / "train.jsonl.gz")
    if args.train_docs:
        rows = rows[: args.train_docs]
    test = read_jsonl(DATA / "20newsgroups" / "test.jsonl.gz")
    docs, labels = [r["text"][:1000] for r in test], [r["label"] for r in test]
    rng = np.random.default_rng(2)
    requests = [([docs[j] for j in idx], [labels[j] for j in idx])
                for idx in (rng.integers(0, len(docs), 10) for _ in range(args.groups * args.per_group))]
    with tempfile.TemporaryDirectory(prefix="nbayes-writer-") as tmp:
        path = Path(tmp) / "20news.nbm"
        t0 = time.perf_counter()
        nbayes.TextClassifier().fit([r["text"] for r in rows], [r["label"] for r in rows]).save(path)
        print(f"trained on {len(rows):,} posts in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        params = inspect.signature(Learner).parameters  # (a tree before pacing or windows: measured as it is)
        paced = "pace" in params
        learner = Learner(ModelHolder(str(path), freeze_gc=True), freeze_gc=True,
                          **({"pace": args.pace} if paced else {}),
                          **({"window": args.window} if args.window is not None and "window" in params else {}),
                          **({"publish_every": args.publish_every}
                             if args.publish_every is not None and "publish_every" in params else {}))
        for X, y in requests[:20]:  # warm-up (compilation, caches)
            learner._apply_group([Job(LEARN, learner.count(X, y, None), y, None)])
        count_t: list[float] = []
        deltas = []
        for X, y in requests:
            t0 = time.perf_counter()
            deltas.append(learner.count(X, y, None))
            count_t.append(time.perf_counter() - t0)
        ticker = Ticker()
        group_t: list[float] = []
        cpu_t: list[float] = []
        prof = None
        if args.profile:
            import cProfile

            prof = cProfile.Profile()
        time.sleep(0.05)
        ticker.on = True
        for g in range(args.groups):
            jobs = [Job(LEARN, d, y, None) for d, (_, y) in
                    zip(deltas[g * args.per_group:(g + 1) * args.per_group], requests[g * args.per_group:])]
            c0, t0 = time.thread_time(), time.perf_counter()
            if prof is not None:
                prof.enable()
            learner._apply_group(jobs)
            if prof is not None:
                prof.disable()
            group_t.append(time.perf_counter() - t0)
            cpu_t.append(time.thread_time() - c0)
            time.sleep(0.002)  # the ticker runs freely between groups
        ticker.on = False
        ticker.stop()
        if args.mixed:
            mixed(learner, requests, docs, args.mixed, args.rate)
        learner.stop()
        if prof is not None:
            prof.dump_stats(args.profile)
    ms = lambda a: np.array(a) * 1e3  # noqa: E731
    c, g, u, late = ms(count_t), ms(group_t), ms(cpu_t), ms(ticker.late)
    print(f"count per request of 10 posts: median {np.median(c):.2f} ms, p90 {np.percentile(c, 90):.2f} ms")
    print(f"writer per group ({args.per_group} request(s)): wall median {np.median(g):.2f} ms, p90 "
          f"{np.percentile(g, 90):.2f} ms; writer thread CPU median {np.median(u):.2f} ms")
    print(f"ticker lateness while writing: p50 {np.median(late):.2f} ms, p99 {np.percentile(late, 99):.2f} ms, "
          f"max {late.max():.2f} ms ({len(late)} wake-ups)")


def predicting(holder: Any, docs: list[str], seconds: float) -> tuple[float, float, float]:
    """Single-document predictions in a loop for ``seconds``: (per second, p50 ms, p99 ms)."""
    from nbayes._kernels import set_max_threads

    set_max_threads(1)  # as the service's event loop thread predicts a small request
    docs = [d[:160] for d in docs]  # SMS-sized, as benchmarks/serve.py sends
    lat = []
    end = time.perf_counter() + seconds
    i = 0
    while True:
        t0 = time.perf_counter()
        if t0 >= end:
            break
        holder.current.predict([docs[i % len(docs)]])
        lat.append(time.perf_counter() - t0)
        i += 1
    ms = np.array(lat) * 1e3
    return len(ms) / seconds, float(np.percentile(ms, 50)), float(np.percentile(ms, 99))


class KernelClock:
    """Wall time the writer spends in the compiled kernels of :mod:`nbayes.text.online` (they
    release the GIL): the writer's CPU time less this is about the time it holds the GIL."""

    def __init__(self) -> None:
        import nbayes.text.online as online

        self.seconds = 0.0
        for name in ("find_terms", "extend_slots", "heavy_rows", "inserted", "merge_pairs", "merge_rows",
                     "renumbered", "build"):
            f = getattr(online, name, None)
            if f is not None:
                setattr(online, name, self._timed(f))

    def _timed(self, f: Any) -> Any:
        def timed(*a: Any, **k: Any) -> Any:
            if threading.current_thread().name != "nbayes-learner":
                return f(*a, **k)
            t0 = time.thread_time()
            try:
                return f(*a, **k)
            finally:
                self.seconds += time.thread_time() - t0
        return timed


def mixed(learner: Any, requests: list[Any], docs: list[str], seconds: float, rate: float) -> None:
    from nbayes.serve._learn import LEARN

    clock = KernelClock()
    group = learner._group
    spent = [0.0]  # the writer thread's CPU time in groups and publishes
    inside = [False]
    published = [0]

    def timed_group(jobs: Any) -> None:
        t0 = time.thread_time()
        inside[0] = True
        try:
            group(jobs)
        finally:
            inside[0] = False
            spent[0] += time.thread_time() - t0

    learner._group = timed_group
    publish = getattr(learner, "_publish_pending", None)
    if publish is not None:  # (a tree where each group published its version: counted in the groups)
        def timed_publish() -> None:
            published[0] += 1
            if inside[0]:
                return publish()
            t0 = time.thread_time()
            try:
                return publish()
            finally:
                spent[0] += time.thread_time() - t0

        learner._publish_pending = timed_publish

    holder = learner.holder
    out: dict[str, Any] = {}
    t = threading.Thread(target=lambda: out.update(alone=predicting(holder, docs, seconds)))
    t.start()
    t.join()
    v0, p0 = learner.version, published[0]
    w0 = spent[0]
    k0 = clock.seconds
    c0 = time.process_time()
    stop = threading.Event()

    lat: list[float] = []

    def feed() -> None:
        from nbayes._kernels import set_max_threads

        set_max_threads(1)  # as the service counts a small request on its event loop
        due, k, futs = time.perf_counter(), 0, []
        while not stop.is_set():
            due += 1 / rate
            time.sleep(max(0.0, due - time.perf_counter()))
            X, y = requests[k % len(requests)]
            t0 = time.perf_counter()
            fut = learner.submit(LEARN, learner.count(X, y, None), y, None)
            fut.add_done_callback(lambda _, t0=t0: lat.append(time.perf_counter() - t0))
            futs.append(fut)
            k += 1
        out["acked"] = sum(1 for f in futs if f.result() is not None)
        out["latency"] = lat

    f = threading.Thread(target=feed)
    f.start()
    both = predicting(holder, docs, seconds)
    stop.set()
    f.join()
    cpu = time.process_time() - c0
    a = out["alone"]
    lat = np.array(out["latency"]) * 1e3
    print(f"learn requests: acknowledged p50 {np.median(lat):.1f} ms, p99 {np.percentile(lat, 99):.1f} ms")
    wcpu = spent[0] - w0
    gil = wcpu - (clock.seconds - k0)
    print(f"writer CPU: {wcpu * 1e3 / max(out['acked'], 1):.2f} ms per request, {wcpu / seconds:.2f} cores; "
          f"outside the kernels (holding the GIL): {gil * 1e3 / max(out['acked'], 1):.2f} ms per request, "
          f"{gil / seconds:.2f} of the time")
    print(f"predictions alone:          {a[0]:7,.0f}/s p50 {a[1]:.2f} ms p99 {a[2]:.2f} ms")
    print(f"predictions while learning: {both[0]:7,.0f}/s p50 {both[1]:.2f} ms p99 {both[2]:.2f} ms "
          f"({out['acked']} requests of 10 posts acknowledged, "
          f"{(published[0] - p0) if publish is not None else learner.version - v0} versions published; process CPU "
          f"{cpu / seconds:.2f} cores)")


if __name__ == "__main__":
    main()
