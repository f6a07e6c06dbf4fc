"""Scale: streaming larger-than-memory data, and the same model on Dask (issue #6).

1. A synthetic corpus written to disk (JSON Lines): Zipf-distributed vocabulary, each class
   favouring its own words. ``TextClassifier(n_features=2**20)`` (hashing mode) stream-trains
   on it chunk by chunk in a child process: throughput and the child's peak memory.
1b. The same corpus through the command line, ``nbayes train corpus.jsonl --target label``
   (vocabulary mode, chunks of ``--chunk-bytes``): MB/s and the peak memory (RSS) of the process.
2. The same corpus on Dask (a LocalCluster with 1, then 2 worker processes, a bag of lines):
   time, speed-up, and the model compared with the single-process one.
3. A numeric table written to Parquet (row groups of 1M rows), stream-trained by ``GaussianNB``
   row group by row group in a child process: time and peak memory.
4. How fit time grows with rows, features and classes (3 sizes each, in memory).

Run:  python benchmarks/scale.py [--corpus-gb 5] [--rows 100_000_000] [--keep DIR]
      [--skip stream,cli,dask,parquet,growth] [--chunk-bytes 32M]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

V = 200_000  # vocabulary size
K = 20  # classes
WORDS_PER_DOC = 120


def make_corpus(path: Path, gigabytes: float, seed: int = 0) -> int:
    """Write documents until the file holds ``gigabytes``; returns the number of documents."""
    rng = np.random.default_rng(seed)
    vocab = np.array([np.base_repr(i, 36).lower() + "x" for i in range(V)], dtype=object)
    # each class owns a random 2% of the vocabulary, drawn 5x more often than the Zipf base
    owned = [rng.choice(V, V // 50, replace=False) for _ in range(K)]
    target = int(gigabytes * 1e9)
    written = docs = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < target:
            n = 2000
            labels = rng.integers(0, K, n)
            base = np.minimum(rng.zipf(1.3, (n, WORDS_PER_DOC)) - 1, V - 1)
            own = rng.random((n, WORDS_PER_DOC)) < 0.15
            for i in range(n):
                ids = base[i]
                ids[own[i]] = rng.choice(owned[labels[i]], int(own[i].sum()))
                line = json.dumps({"text": " ".join(vocab[ids]), "label": f"c{labels[i]}"}) + "\n"
                f.write(line)
                written += len(line)
            docs += n
    return docs


STREAM_CHILD = r"""
import json, resource, sys, time
import numpy as np
import nbayes
from nbayes.io.readers import read_jsonl
path, n_features = sys.argv[1], int(sys.argv[2])
model = nbayes.TextClassifier(n_features=n_features)
t0 = time.perf_counter(); rows = 0
stream = model.stream()  # each chunk counted in O(chunk); the statistics made once at finish
for texts, labels in read_jsonl(path, chunk_size=20000):
    stream.add(texts, labels); rows += len(texts)
stream.finish()
secs = time.perf_counter() - t0
model.save(sys.argv[3])
print(json.dumps({"seconds": secs, "rows": rows, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

CLI_CHILD = r"""
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
out = subprocess.run([sys.executable, "-m", "nbayes.cli", "train", sys.argv[1], "--target", "label",
                      "-o", sys.argv[2], "--chunk-bytes", sys.argv[3], "--json"], capture_output=True, text=True)
secs = time.perf_counter() - t0
if out.returncode:
    raise SystemExit(out.stderr)
summary = json.loads(out.stdout)
print(json.dumps({"seconds": secs, "train_seconds": summary["seconds"], "rows": summary["rows"],
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""

PARQUET_CHILD = r"""
import json, resource, sys, time
import numpy as np
import pyarrow.parquet as pq
import nbayes
path = sys.argv[1]
model = nbayes.GaussianNB()
t0 = time.perf_counter(); rows = 0
X = None
pf = pq.ParquetFile(path, pre_buffer=False)  # read row group by row group: memory stays flat
for batch in (pf.read_row_group(i) for i in range(pf.num_row_groups)):
    names = [c for c in batch.column_names if c != "y"]
    if X is None or X.shape[0] != batch.num_rows:
        X = np.empty((batch.num_rows, len(names)))  # C order, reused: no per-batch copies
    for j, c in enumerate(names):
        X[:, j] = batch.column(c).to_numpy()
    model.partial_fit(X, batch.column("y").to_numpy()); rows += batch.num_rows
secs = time.perf_counter() - t0
print(json.dumps({"seconds": secs, "rows": rows, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def child(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def write_parquet(path: Path, rows: int, d: int = 10, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    schema = pa.schema([(f"x{j}", pa.float64()) for j in range(d)] + [("y", pa.int32())])
    with pq.ParquetWriter(path, schema, compression="snappy") as w:
        for start in range(0, rows, 1_000_000):
            n = min(1_000_000, rows - start)
            y = rng.integers(0, 5, n).astype(np.int32)
            X = rng.normal(size=(n, d)) + y[:, None] * 0.3
            w.write_table(pa.table({**{f"x{j}": X[:, j] for j in range(d)}, "y": y}, schema=schema))


def dask_fit(path: Path, workers: int, n_features: int):
    import dask.bag as db
    import distributed

    import nbayes
    import nbayes.dask as nbd

    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None, memory_limit="8GiB") as cluster:
        with distributed.Client(cluster):
            bag = db.read_text(str(path), blocksize=256 * 2**20).map(json.loads).map(lambda r: (r["text"], r["label"]))
            t0 = time.perf_counter()
            model = nbd.fit(nbayes.TextClassifier(n_features=n_features), bag)
            return time.perf_counter() - t0, model


def growth() -> list[str]:
    import nbayes

    rng = np.random.default_rng(0)
    lines = []

    def timed(fn) -> float:
        fn()
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    for label, sizes, shape in (
        ("rows", [250_000, 1_000_000, 4_000_000], lambda s: (s, 20, 5)),
        ("features", [10, 40, 160], lambda s: (500_000, s, 5)),
        ("classes", [2, 10, 50], lambda s: (500_000, 20, s)),
    ):
        for s in sizes:
            n, d, k = shape(s)
            X = rng.normal(size=(n, d))
            y = rng.integers(0, k, n)
            Xc = rng.poisson(2.0, (n, d)).astype(float)
            g = timed(lambda: nbayes.GaussianNB().fit(X, y))
            m = timed(lambda: nbayes.MultinomialNB().fit(Xc, y))
            p = timed(lambda: nbayes.GaussianNB().fit(X, y).predict_proba(X))
            lines.append(f"{label:>9} {s:>9,}  (n={n:,} d={d} K={k})  GaussianNB.fit {g:7.3f} s   "
                         f"MultinomialNB.fit {m:7.3f} s   GaussianNB fit+predict_proba {p:7.3f} s")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus-gb", type=float, default=5.0)
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--n-features", type=int, default=2**20)
    ap.add_argument("--keep", default=None, help="folder for the generated files (default: a temporary one)")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: stream,cli,dask,parquet,growth")
    ap.add_argument("--chunk-bytes", default="32M", help="nbayes train --chunk-bytes for the cli part")
    args = ap.parse_args()
    skip = set(args.skip.split(",")) - {""}
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="nbayes-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} cores; files in {folder}")

    corpus = folder / f"corpus-{args.corpus_gb:g}gb.jsonl"
    if not ({"stream", "cli", "dask"} <= skip):
        if not corpus.exists():
            t0 = time.perf_counter()
            docs = make_corpus(corpus, args.corpus_gb)
            print(f"wrote {corpus.stat().st_size / 1e9:.2f} GB, {docs:,} documents in {time.perf_counter() - t0:.0f} s")
        size_mb = corpus.stat().st_size / 1e6
    if "stream" not in skip:
        r = child(STREAM_CHILD, corpus, args.n_features, folder / "stream.nbm")
        print(f"stream-train TextClassifier(n_features={args.n_features}) on {size_mb / 1e3:.2f} GB: "
              f"{r['seconds']:.0f} s, {size_mb / r['seconds']:.1f} MB/s, {r['rows']:,} documents, "
              f"peak memory {r['peak_mb']:.0f} MB (goal < 1024)")
    if "cli" not in skip:
        r = child(CLI_CHILD, corpus, folder / "cli.nbm", args.chunk_bytes)
        print(f"nbayes train (vocabulary mode, --chunk-bytes {args.chunk_bytes}) on {size_mb / 1e3:.2f} GB: "
              f"{r['seconds']:.0f} s with start-up ({r['train_seconds']:.0f} s reading and training), "
              f"{size_mb / r['seconds']:.1f} MB/s, {r['rows']:,} documents, peak RSS {r['peak_mb']:.0f} MB "
              f"(goal < 500 MB, >= 60 MB/s at 5 GB)")
    if "dask" not in skip:
        import nbayes

        single = nbayes.load(folder / "stream.nbm") if (folder / "stream.nbm").exists() else None
        times = {}
        for workers in (1, 2):
            secs, model = dask_fit(corpus, workers, args.n_features)
            times[workers] = secs
            same = "n/a" if single is None else bool(np.allclose(model.stats_.term_count, single.stats_.term_count, rtol=1e-12))
            print(f"Dask, {workers} worker(s): {secs:.0f} s, {size_mb / secs:.1f} MB/s; counts equal to the single-process model: {same}")
        print(f"Dask speed-up 1 -> 2 workers: {times[1] / times[2]:.2f}x")
    if "parquet" not in skip:
        table = folder / f"table-{args.rows}.parquet"
        if not table.exists():
            t0 = time.perf_counter()
            write_parquet(table, args.rows)
            print(f"wrote {args.rows:,} rows x 10 features to Parquet ({table.stat().st_size / 1e9:.2f} GB) in {time.perf_counter() - t0:.0f} s")
        r = child(PARQUET_CHILD, table)
        print(f"GaussianNB stream-trained on {r['rows']:,} Parquet rows: {r['seconds']:.1f} s "
              f"({r['rows'] / r['seconds'] / 1e6:.1f} M rows/s), peak memory {r['peak_mb']:.0f} MB")
    if "growth" not in skip:
        print("fit time against rows, features and classes:")
        for line in growth():
            print("  " + line)


if __name__ == "__main__":
    main()
