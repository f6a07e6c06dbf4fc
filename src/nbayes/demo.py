"""``nbayes demo``: the worked examples on the data shipped in ``nbayes/data``."""

from __future__ import annotations

import csv
import gzip
import io
import json
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np


def _read_csv(name: str) -> tuple[list[str], list[list[str]]]:
    raw = resources.files("nbayes").joinpath("data", name).read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"))))
    return rows[0], rows[1:]


def playtennis() -> dict[str, Any]:
    from . import CategoricalNB

    header, rows = _read_csv("playtennis.csv")
    X = [r[1:5] for r in rows]
    y = [r[5] for r in rows]
    model = CategoricalNB(alpha=0).fit(X, y)  # MLE, eq. 6 of chapter 002
    day = ["Sunny", "Cool", "High", "Strong"]
    joint = np.exp(model.predict_joint_log_proba([day]))[0]
    return {
        "day": dict(zip(header[1:5], day)),
        "joint": {str(c): float(p) for c, p in zip(model.classes_, joint)},
        "prediction": str(model.predict([day])[0]),
        "posterior": {str(c): float(p) for c, p in zip(model.classes_, model.predict_proba([day])[0])},
    }


def house_votes(workdir: Path) -> dict[str, Any]:
    from . import NaiveBayes, load

    header, rows = _read_csv("house_votes_84.csv.gz")
    y = np.array([r[0] for r in rows])
    X = np.array([[v if v else None for v in r[1:]] for r in rows], dtype=object)
    names = header[1:]
    n = len(y)
    missing = sum(v is None for v in X.ravel())
    folds = np.arange(n) % 10
    order = np.random.default_rng(0).permutation(n)
    fold_of = np.empty(n, dtype=int)
    fold_of[order] = folds
    hits = []
    t0 = time.perf_counter()
    for k in range(10):
        test = fold_of == k
        model = NaiveBayes().fit(X[~test], y[~test])
        hits.append(float(np.mean(model.predict(X[test]) == y[test])))
    cv_seconds = time.perf_counter() - t0

    full = NaiveBayes().fit(X, y)
    row = X[2:3]
    explanation = full.explain(row)
    pred, runner, terms, baseline = explanation.log_odds(0)
    top = np.argsort(-np.abs(terms))[:5]
    shard_a = NaiveBayes().fit(X[: n // 2], y[: n // 2])
    shard_b = NaiveBayes().fit(X[n // 2 :], y[n // 2 :])
    merged = shard_a.merge(shard_b)
    merge_gap = float(np.max(np.abs(merged.predict_proba(X) - full.predict_proba(X))))
    forgot = NaiveBayes().fit(X, y).unlearn(X[:50], y[:50])
    never = NaiveBayes().fit(X[50:], y[50:])
    unlearn_gap = float(np.max(np.abs(forgot.predict_proba(X) - never.predict_proba(X))))
    path = workdir / "house_votes.nbm"
    full.save(path)
    loaded = load(path)
    same = bool(np.array_equal(loaded.predict_proba(X), full.predict_proba(X)))
    all_missing = np.full((1, X.shape[1]), None, dtype=object)
    return {
        "rows": n,
        "features": X.shape[1],
        "missing_votes": int(missing),
        "cv_accuracy": float(np.mean(hits)),
        "cv_accuracy_sd": float(np.std(hits)),
        "cv_seconds": cv_seconds,
        "explained_row": {
            "prediction": str(pred),
            "against": str(runner),
            "baseline": baseline,
            "top_terms": {names[j]: float(terms[j]) for j in top},
            "votes": {names[j]: row[0, j] for j in top},
        },
        "all_missing_row_gets_prior": {
            str(c): float(p) for c, p in zip(full.classes_, full.predict_proba(all_missing)[0])
        },
        "merge_max_abs_diff": merge_gap,
        "unlearn_max_abs_diff": unlearn_gap,
        "file_bytes": path.stat().st_size,
        "load_identical": same,
    }


def run(as_json: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = {"playtennis": playtennis(), "house_votes_84": house_votes(Path(tmp))}
    if as_json:
        print(json.dumps(results, indent=2))
        return
    pt, hv = results["playtennis"], results["house_votes_84"]
    print("PlayTennis (Mitchell, slides 000), maximum likelihood (alpha=0)")
    print(f"  new day: {pt['day']}")
    for c, p in pt["joint"].items():
        print(f"  P({c}) * prod P(a|{c}) = {p:.4f}")
    print(f"  -> prediction: {pt['prediction']}   posterior: "
          + ", ".join(f"{c}={p:.3f}" for c, p in pt["posterior"].items()))
    print()
    print(f"House votes 1984 (UCI): {hv['rows']} rows, {hv['features']} votes, "
          f"{hv['missing_votes']} missing votes left out of the product exactly")
    print(f"  NaiveBayes() 10-fold CV accuracy: {hv['cv_accuracy']:.3f} "
          f"(sd {hv['cv_accuracy_sd']:.3f}, {hv['cv_seconds']:.2f} s)")
    ex = hv["explained_row"]
    print(f"  row 2 -> {ex['prediction']} (vs {ex['against']}); log-odds terms, largest first:")
    for name, term in ex["top_terms"].items():
        print(f"    {name:<40} vote={ex['votes'][name]!s:<5} {term:+.3f}")
    print(f"    {'(log prior difference)':<40} {'':<10} {ex['baseline']:+.3f}")
    print(f"  a row with every vote missing gets the prior: {hv['all_missing_row_gets_prior']}")
    print(f"  merge of two half models vs one full model: max |dP| = {hv['merge_max_abs_diff']:.1e}")
    print(f"  unlearn 50 rows vs never trained on them:    max |dP| = {hv['unlearn_max_abs_diff']:.1e}")
    print(f"  saved ({hv['file_bytes']} bytes) and loaded back: identical = {hv['load_identical']}")
