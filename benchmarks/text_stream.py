"""Text streams, timed: the 20 Newsgroups fit, partial_fit streams, the stream object, and the
online update of the learning service (issue #28: state final after each call).

Each figure is the median of ``--repeat`` runs in this process (after a warm-up run, but for the
streams, which the fit warms up):

- ``fit``: ``TextClassifier(alpha=0.01).fit`` on the 11,314 training documents, then one
  prediction of 100 documents (what a read after fit costs);
- ``partial_fit <chunks>x<size> <mode>``: a model learning the first chunk by ``fit``, then
  ``partial_fit`` of every chunk, then one prediction (the stream's whole cost, read included);
- ``stream <chunks>x<size> <mode>``: the same chunks through ``model.stream()`` (absent before it);
- ``update``: one online update of one document (``nbayes.text.online.add_counts``) to the
  model fitted on the training documents, per update.

To compare two versions, run it with each one's interpreter in turn (``--json``), alternating:
python benchmarks/text_stream.py --json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import nbayes
from nbayes._validation import encode_labels, sorted_unique
from nbayes.text.online import add_counts

DATA = Path(os.environ.get("NBAYES_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def load(part: str) -> tuple[list[str], np.ndarray]:
    with gzip.open(DATA / "20newsgroups" / f"{part}.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


def timed(fn: Callable[[], Any], repeat: int, warm: bool = True) -> float:
    if warm:
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def stream(docs: list[str], y: np.ndarray, n_chunks: int, size: int, kw: dict[str, Any], how: str) -> Callable[[], Any]:
    chunks = [(docs[i * size:(i + 1) * size], y[i * size:(i + 1) * size]) for i in range(n_chunks)]
    probe = docs[:100]

    def run() -> Any:
        m = nbayes.TextClassifier(**kw).fit(*chunks[0])
        if how == "stream":
            s = m.stream()
            for X, yy in chunks[1:]:
                s.add(X, yy)
            s.finish()
        else:
            for X, yy in chunks[1:]:
                m.partial_fit(X, yy)
        return m.predict(probe)

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    docs, y = load("train")
    out: dict[str, float] = {}
    out["fit"] = timed(lambda: nbayes.TextClassifier(alpha=0.01).fit(docs, y).predict(docs[:100]), args.repeat)
    has_stream = hasattr(nbayes.TextClassifier(), "stream")
    for mode, kw in (("vocabulary", {}), ("hashing", {"n_features": 2**18})):
        for n_chunks, size in ((200, 100), (20, 2000)):
            for how in ("partial_fit", "stream") if has_stream else ("partial_fit",):
                out[f"{how} {n_chunks}x{size} {mode}"] = timed(stream(docs, y, n_chunks, size, kw, how), args.repeat,
                                                                     warm=False)
    model = nbayes.TextClassifier(alpha=0.01).fit(docs, y)
    one = [(docs[i:i + 1], y[i:i + 1]) for i in range(200)]

    def updates() -> None:
        for X, yy in one:
            Xv, _ = model.prepare_input(X, fitting=False)
            classes = sorted_unique(np.asarray(yy, dtype=object))
            codes, _ = encode_labels(np.asarray(yy, dtype=object), classes)
            d = model.count_statistics(Xv, codes, len(classes), None)
            assert add_counts(model, d, classes) is not None

    out["update (per update)"] = timed(updates, args.repeat) / len(one)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:36s} {v * 1000:10.2f} ms")


if __name__ == "__main__":
    main()
