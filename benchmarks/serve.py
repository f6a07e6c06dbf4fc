"""Load on ``nbayes serve``: the 20 Newsgroups TextClassifier on loopback under 64 concurrent
connections sending single SMS-sized documents, for a bounded time (requests/s, p50/p99 latency,
errors); the same model as scikit-learn's CountVectorizer + MultinomialNB pipeline behind a minimal
FastAPI (or Starlette) app, as the reference; then batches of 1,000 documents per request
(documents/s).

    python benchmarks/serve.py [--seconds 10] [--connections 64] [--workers 2] [--json]
    python benchmarks/serve.py --learn [--learn-rate 1000] [--log-mb 1024]   # nbayes serve --learn

``--learn`` measures the learning service instead (benchmarks/serve_learn.py): predictions with
and without 8 connections learning, durable learn throughput (batches of 100, single documents),
and recovery time for a log of ``--log-mb`` MB (default 16: a quick run; the goal is for 1024).

The load generator is an async Python client, aiohttp (``pip install aiohttp``), in this process,
or with ``--client wrk`` Debian's wrk (``apt-get install wrk``; a C load generator, far lighter: it
shows what the server itself can do); either shares the machine's cores with the server. httpx's
AsyncClient is there too, but its pool serialises 64 concurrent requests (about 100 requests/s
here), so it measures itself.
The goal on a 2-core machine: >= 1,000 requests/s with p99 < 50 ms and no errors. With a closed
loop of 64 connections, p99 < 50 ms needs about 1,300 requests/s or more (Little's law).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("NBAYES_DATA") or HERE.parents[1] / "shared" / "data")


# ---------------------------------------------------------------------------- data and models
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def sms_documents(n: int = 2000) -> list[str]:
    """SMS messages (the UCI SMS spam set) or, without it, 20 Newsgroups test posts cut to 160
    characters: SMS-sized documents either way."""
    sms = DATA / "sms_spam" / "all.jsonl.gz"
    if sms.exists():
        docs = [r["text"] for r in read_jsonl(sms)]
    else:
        docs = [r["text"][:160] for r in read_jsonl(DATA / "20newsgroups" / "test.jsonl.gz")]
    rng = np.random.default_rng(0)
    return [docs[i] for i in rng.permutation(len(docs))[:n]]


def train(folder: Path, reference: bool, limit: int | None = None) -> tuple[Path, Path | None]:
    import nbayes

    rows = read_jsonl(DATA / "20newsgroups" / "train.jsonl.gz")
    if limit is not None:  # a quick run: a random sample (every class in it)
        rows = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))[:limit]]
    texts, labels = [r["text"] for r in rows], [r["label"] for r in rows]
    t0 = time.perf_counter()
    model = nbayes.TextClassifier().fit(texts, labels)
    path = folder / "20news.nbm"
    model.save(path)
    print(f"trained the nbayes TextClassifier on {len(texts):,} posts in {time.perf_counter() - t0:.1f} s -> {path.name}")
    if not reference:
        return path, None
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    t0 = time.perf_counter()
    pipe = make_pipeline(CountVectorizer(), MultinomialNB()).fit(texts, labels)
    ref = folder / "20news-sklearn.pkl"
    ref.write_bytes(pickle.dumps(pipe))  # our own file, read back by our own reference app
    print(f"trained scikit-learn's CountVectorizer + MultinomialNB in {time.perf_counter() - t0:.1f} s")
    return path, ref


REFERENCE_APP = '''
"""The reference: scikit-learn's pipeline behind a minimal FastAPI app (Starlette without it)."""
import os
import pickle

with open(os.environ["REFERENCE_MODEL"], "rb") as f:
    pipe = pickle.load(f)
classes = [str(c) for c in pipe.classes_]


def answer(P):
    return [{"label": classes[int(p.argmax())], "probabilities": dict(zip(classes, p.tolist()))} for p in P]


try:
    from fastapi import FastAPI
    from pydantic import BaseModel

    class Body(BaseModel):
        text: str | None = None
        texts: list[str] | None = None

    app = FastAPI()

    @app.post("/v1/predict")
    def predict(body: Body):
        if body.texts is not None:
            return {"predictions": answer(pipe.predict_proba(body.texts))}
        return answer(pipe.predict_proba([body.text]))[0]

    @app.get("/healthz")
    def healthz():
        return {"status": "ok"}

except ImportError:
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def predict(request):
        body = await request.json()
        if "texts" in body:
            return JSONResponse({"predictions": answer(pipe.predict_proba(body["texts"]))})
        return JSONResponse(answer(pipe.predict_proba([body["text"]]))[0])

    async def healthz(request):
        return JSONResponse({"status": "ok"})

    app = Starlette(routes=[Route("/v1/predict", predict, methods=["POST"]), Route("/healthz", healthz)])
'''


# ---------------------------------------------------------------------------- servers
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server in a subprocess, up once /healthz answers; stopped with SIGINT."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.log = name, log
        with open(log, "wb") as err:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env, start_new_session=True)

    def wait(self, url: str, timeout: float = 120) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise SystemExit(f"{self.name} exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"{self.name} did not start in {timeout:.0f} s")

    def cpu_seconds(self) -> float:
        """The server process's CPU time so far (user + system, all its threads; Linux's /proc,
        else nan): per request, a figure the other jobs on the machine move far less than a rate."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return float("nan")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # its own session: the workers too
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def nbayes_server(model: Path, port: int, workers: int, folder: Path, extra: tuple[str, ...] = ()) -> Server:
    exe = shutil.which("nbayes")
    cmd = [exe] if exe else [sys.executable, "-m", "nbayes.cli"]
    cmd += ["serve", str(model), "--port", str(port), "--workers", str(workers), *extra]
    return Server("nbayes serve", cmd, os.environ.copy(), folder / "nbayes-serve.log")


def reference_server(ref: Path, port: int, workers: int, folder: Path) -> Server:
    (folder / "reference_app.py").write_text(textwrap.dedent(REFERENCE_APP))
    env = dict(os.environ, REFERENCE_MODEL=str(ref))
    cmd = [sys.executable, "-m", "uvicorn", "reference_app:app", "--app-dir", str(folder), "--port", str(port),
           "--workers", str(workers), "--no-access-log", "--log-level", "warning"]
    return Server("reference", cmd, env, folder / "reference.log")


# ---------------------------------------------------------------------------- the load generator
async def drive(url: str, bodies: list[bytes], seconds: float, connections: int, client: str, warmup: float = 1.0) -> dict[str, Any]:
    """``connections`` closed loops posting ``bodies`` in turn for ``seconds`` (after a warm-up)."""
    latencies: list[float] = []
    errors = 0
    statuses: dict[str, int] = {}
    headers = {"Content-Type": "application/json"}
    start = time.perf_counter()
    measure_from = start + warmup
    stop_at = measure_from + seconds

    if client == "aiohttp":
        import aiohttp

        session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections, force_close=False),
            timeout=aiohttp.ClientTimeout(total=30),
        )

        async def post(body: bytes) -> int:
            async with session.post(url, data=body, headers=headers) as r:
                await r.read()
                return r.status
    else:
        import httpx

        session = httpx.AsyncClient(
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections), timeout=30
        )

        async def post(body: bytes) -> int:
            r = await session.post(url, content=body, headers=headers)
            return r.status_code

    async def loop(k: int) -> None:
        nonlocal errors
        i = k
        while True:
            t0 = time.perf_counter()
            if t0 >= stop_at:
                return
            try:
                status = await post(bodies[i % len(bodies)])
            except Exception as exc:  # noqa: BLE001 - counted, not fatal
                status = -1
                statuses[type(exc).__name__] = statuses.get(type(exc).__name__, 0) + 1
            t1 = time.perf_counter()
            i += connections
            if t0 >= measure_from:
                latencies.append(t1 - t0)
                if status != 200:
                    errors += 1
                    statuses[str(status)] = statuses.get(str(status), 0) + 1

    try:
        await asyncio.gather(*(loop(k) for k in range(connections)))
    finally:
        await (session.close() if client == "aiohttp" else session.aclose())
    elapsed = max(time.perf_counter(), stop_at) - measure_from
    lat = np.array(latencies) * 1e3
    return {
        "requests": len(lat),
        "requests_per_s": len(lat) / elapsed,
        "p50_ms": float(np.percentile(lat, 50)) if len(lat) else float("nan"),
        "p99_ms": float(np.percentile(lat, 99)) if len(lat) else float("nan"),
        "errors": errors,
        "error_kinds": statuses,
    }


WRK_SCRIPT = """
local bodies = {}
for line in io.lines(os.getenv("NBAYES_BODIES")) do bodies[#bodies + 1] = line end
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
"""


def _ms(text: str) -> float:
    for unit, scale in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)


def run_wrk(url: str, bodies: list[bytes], seconds: float, connections: int) -> dict[str, Any]:
    """The same closed loop driven by wrk (Debian's package), one C thread."""
    import re

    with tempfile.TemporaryDirectory() as tmp:
        lua, data = Path(tmp) / "post.lua", Path(tmp) / "bodies.jsonl"
        lua.write_text(WRK_SCRIPT)
        data.write_bytes(b"\n".join(bodies) + b"\n")
        env = dict(os.environ, NBAYES_BODIES=str(data))
        threads = "1"  # one C thread drives 64 connections easily; the cores are for the server
        subprocess.run(["wrk", "-t", threads, "-c", str(connections), "-d", "1s", "-s", str(lua), url],
                       env=env, capture_output=True, check=True)  # warm-up
        out = subprocess.run(["wrk", "-t", threads, "-c", str(connections), "-d", f"{seconds:g}s", "--latency",
                              "-s", str(lua), url], env=env, capture_output=True, text=True, check=True).stdout
    lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", out, re.M))
    if set(lat) != {"50", "99"}:
        raise SystemExit(f"cannot read wrk's output:\n{out}")
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(non2xx.group(1)) if non2xx else 0) + (sum(map(int, sock.groups())) if sock else 0)
    return {
        "requests": total,
        "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50_ms": _ms(lat["50"]),
        "p99_ms": _ms(lat["99"]),
        "errors": errors,
        "error_kinds": {
            **({"non-2xx": int(non2xx.group(1))} if non2xx else {}),
            **({f"socket {k}": int(v) for k, v in zip(("connect", "read", "write", "timeout"), sock.groups()) if int(v)} if sock else {}),
        },
    }


def run_load(url: str, bodies: list[bytes], seconds: float, connections: int, client: str) -> dict[str, Any]:
    if client == "wrk":
        return run_wrk(url, bodies, seconds, connections)
    try:
        import uvloop

        return uvloop.run(drive(url, bodies, seconds, connections, client))
    except ImportError:
        return asyncio.run(drive(url, bodies, seconds, connections, client))


# ---------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="measured time per run (after 1 s of warm-up)")
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2, help="server worker processes")
    ap.add_argument("--batch", type=int, default=1000, help="documents per request in the batch run")
    ap.add_argument("--batch-connections", type=int, default=4)
    ap.add_argument("--client", choices=("aiohttp", "httpx", "wrk"), default=None,
                    help="the load generator; default: aiohttp if installed, else wrk if installed, else httpx")
    ap.add_argument("--no-reference", action="store_true", help="skip the scikit-learn reference")
    ap.add_argument("--json", action="store_true", help="print the results as JSON too")
    ap.add_argument("--learn", action="store_true", help="measure nbayes serve --learn (benchmarks/serve_learn.py)")
    ap.add_argument("--learn-rate", type=float, default=1000.0, help="--learn: documents/s the 8 learners send")
    ap.add_argument("--log-mb", type=float, default=16.0, help="--learn: size of the log replayed at start (MB)")
    ap.add_argument("--learners-process", action="store_true",
                    help="--learn: the 8 learners in a client process of their own (default: in the predicting "
                         "client's process, whose GIL they then share)")
    ap.add_argument("--learn-pace", type=float, default=None,
                    help="--learn: the service's --learn-pace (default: its own, 0: no pacing)")
    ap.add_argument("--track-prior", action="store_true",
                    help="the server's CPU per single-document request without and with --track-prior (one worker)")
    ap.add_argument("--train-docs", type=int, default=None, help="train on the first N posts only (a quick run)")
    args = ap.parse_args()
    client = args.client
    if client is None:
        try:
            import aiohttp  # noqa: F401  (installed?)

            client = "aiohttp"
        except ImportError:
            client = "wrk" if shutil.which("wrk") else "httpx"
    if client == "httpx":
        print("warning: httpx's connection pool serialises 64 concurrent requests (about 100 requests/s "
              "here): it measures the client, not the server; pip install aiohttp, or use --client wrk")

    docs = sms_documents()
    singles = [json.dumps({"text": d}).encode() for d in docs]
    rng = np.random.default_rng(1)
    batches = [json.dumps({"texts": [docs[i] for i in rng.integers(0, len(docs), args.batch)]}).encode() for _ in range(8)]
    print(f"documents: {len(docs):,}, mean {np.mean([len(d) for d in docs]):.0f} characters; client: {client}; "
          f"{args.connections} connections, {args.seconds:g} s per run; server workers: {args.workers}; cores: {os.cpu_count()}")

    results: dict[str, Any] = {}
    if args.learn:
        from serve_learn import run as run_learning  # benchmarks/serve_learn.py, beside this file

        test = read_jsonl(DATA / "20newsgroups" / "test.jsonl.gz")
        with tempfile.TemporaryDirectory(prefix="nbayes-serve-bench-") as tmp:
            model, _ = train(Path(tmp), reference=False, limit=args.train_docs)
            results = run_learning(args, Path(tmp), model, [r["text"][:1000] for r in test], [r["label"] for r in test],
                                   singles, Server, run_load, free_port, client)
        if args.json:
            print(json.dumps(results, indent=2))
        return
    if args.track_prior:
        track_prior_cost(args, singles, client)
        return
    with tempfile.TemporaryDirectory(prefix="nbayes-serve-bench-") as tmp:
        folder = Path(tmp)
        model, ref = train(folder, reference=not args.no_reference, limit=args.train_docs)
        servers = [("nbayes serve", lambda port: nbayes_server(model, port, args.workers, folder))]
        if ref is not None:
            servers.append(("scikit-learn reference", lambda port: reference_server(ref, port, args.workers, folder)))
        for name, make in servers:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            with make(port) as server:
                server.wait(base)
                single = run_load(base + "/v1/predict", singles, args.seconds, args.connections, client)
                batch = run_load(base + "/v1/predict", batches, max(3.0, args.seconds / 2), args.batch_connections, client)
                batch["documents_per_s"] = batch["requests_per_s"] * args.batch
                results[name] = {"single": single, "batch": batch}
                print(
                    f"{name:>24}: {single['requests_per_s']:8,.0f} requests/s  p50 {single['p50_ms']:6.1f} ms  "
                    f"p99 {single['p99_ms']:6.1f} ms  errors {single['errors']}"
                    f"{' ' + json.dumps(single['error_kinds']) if single['errors'] else ''}"
                )
                print(
                    f"{'':>24}  batches of {args.batch:,}: {batch['documents_per_s']:10,.0f} documents/s "
                    f"(p50 {batch['p50_ms']:.0f} ms per request, errors {batch['errors']})"
                )
    ours = results["nbayes serve"]["single"]
    met = ours["requests_per_s"] >= 1000 and ours["p99_ms"] < 50 and ours["errors"] == 0
    print(f"goal (>= 1,000 requests/s, p99 < 50 ms, no errors): {'met' if met else 'NOT met'}")
    if args.json:
        print(json.dumps(results, indent=2))


def track_prior_cost(args: Any, singles: list[bytes], client: str, rounds: int = 4) -> None:
    """The server's CPU time per single-SMS request without and with ``--track-prior`` (one
    worker, the same load, ``rounds`` pairs, which goes first alternating): CPU per request,
    unlike a rate, moves little with the other jobs on the machine."""
    with tempfile.TemporaryDirectory(prefix="nbayes-serve-bench-") as tmp:
        folder = Path(tmp)
        model, _ = train(folder, reference=False, limit=args.train_docs)
        cpu: dict[str, list[float]] = {"off": [], "on": []}
        pair: list[tuple[str, tuple[str, ...]]] = [("off", ()), ("on", ("--track-prior",))]
        for r in range(rounds):
            for name, extra in pair if r % 2 == 0 else pair[::-1]:
                port = free_port()
                base = f"http://127.0.0.1:{port}"
                with nbayes_server(model, port, 1, folder, extra) as server:
                    server.wait(base)
                    run_load(base + "/v1/predict", singles, 1.0, args.connections, client)  # warm-up
                    before = server.cpu_seconds()
                    out = run_load(base + "/v1/predict", singles, args.seconds, args.connections, client)
                    n = float(out["requests"])
                    cpu[name].append(1e6 * (server.cpu_seconds() - before) / max(n, 1.0))
                    if name == "on":
                        with urllib.request.urlopen(base + "/v1/model", timeout=60) as r:
                            tracked = json.load(r)["prior_tracking"]
                print(f"--track-prior {name:>3}: {out['requests_per_s']:7,.0f} requests/s, "
                      f"{cpu[name][-1]:6.0f} us of server CPU per request")
        off, on = float(np.median(cpu["off"])), float(np.median(cpu["on"]))
        print(f"median server CPU per request: {off:.0f} us without, {on:.0f} us with --track-prior "
              f"({100 * (on / off - 1):+.1f}%); window {tracked['rows']:,} rows, drift {tracked['drift']}")


if __name__ == "__main__":
    main()
