"""Peak memory of a grid search: nbayes ``SearchCV`` against scikit-learn's ``GridSearchCV``
(issue #29 item 6).

The same grid on the same documents: 3,000 documents of 20 Newsgroups (bydate training part, a
fixed random sample, headers as shipped), alpha x ngram_range in {(1, 1), (1, 2)}, the same 5
stratified folds. Each search runs in a fresh subprocess, so its peak resident set size
(``ru_maxrss``) is its own; the script prints each peak, the ratio, the best scores (the same
folds give the same scores) and the wall times. ``--tune`` also measures ``nbayes tune`` on a
JSON Lines file of the same documents.

Memory is meaningful on a shared machine; the wall times are not (other jobs share the cores).

Run:  python benchmarks/search_memory.py [--docs 3000] [--tune]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

DATA = os.environ.get("NBAYES_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
ALPHAS = [0.01, 0.03, 0.1, 0.3, 1.0]
NGRAMS = [(1, 1), (1, 2)]

CHILD = r"""
import gzip, json, resource, sys, time
import numpy as np
which, path, n_docs = sys.argv[1], sys.argv[2], int(sys.argv[3])
alphas, ngrams = json.loads(sys.argv[4]), [tuple(g) for g in json.loads(sys.argv[5])]
rows = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
pick = np.sort(np.random.default_rng(0).choice(len(rows), n_docs, replace=False))
texts = [rows[i]["text"] for i in pick]
y = np.array([rows[i]["label"] for i in pick], dtype=object)
del rows
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from sklearn.model_selection import StratifiedKFold
cv = list(StratifiedKFold(5, shuffle=True, random_state=0).split(texts, y))
t0 = time.perf_counter()
if which == "nbayes":
    import nbayes
    from nbayes.model_selection import SearchCV
    s = SearchCV(nbayes.TextClassifier(), {"alpha": alphas, "ngram_range": ngrams}, cv=cv).fit(texts, y)
    best, params = s.best_score_, s.best_params_
else:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.model_selection import GridSearchCV
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import Pipeline
    pipe = Pipeline([("vec", CountVectorizer()), ("nb", MultinomialNB())])
    s = GridSearchCV(pipe, {"nb__alpha": alphas, "vec__ngram_range": ngrams}, cv=cv).fit(texts, y)
    best, params = s.best_score_, {k.split("__")[1]: v for k, v in s.best_params_.items()}
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"peak_mb": peak / 1024, "data_mb": base / 1024, "best": best, "params": {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}, "seconds": seconds}))
"""


def child(which: str, n_docs: int) -> dict:
    path = os.path.join(DATA, "20newsgroups", "train.jsonl.gz")
    out = subprocess.run([sys.executable, "-c", CHILD, which, path, str(n_docs), json.dumps(ALPHAS),
                          json.dumps(NGRAMS)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def tune(n_docs: int) -> dict:
    """``nbayes tune`` on a file of the same documents, its peak RSS read by the parent
    (``RUSAGE_CHILDREN`` of a process that runs nothing else)."""
    import gzip
    import time

    import numpy as np

    path = os.path.join(DATA, "20newsgroups", "train.jsonl.gz")
    rows = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    pick = np.sort(np.random.default_rng(0).choice(len(rows), n_docs, replace=False))
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, "docs.jsonl")
        with open(f, "w", encoding="utf-8") as out:
            for i in pick:
                out.write(json.dumps({"text": rows[i]["text"], "label": rows[i]["label"]}) + "\n")
        del rows
        code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
                "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
                "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, time.perf_counter() - t)")
        nb = os.path.join(os.path.dirname(sys.executable), "nbayes")
        cmd = [sys.executable, "-c", code, nb, "tune", f, "--target", "label", "--cv", "5",
               "--grid", "alpha=" + ",".join(map(str, ALPHAS)), "--grid", "ngram_range=1:1,1:2"]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    return {"peak_mb": float(out[0]), "seconds": float(out[1])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--tune", action="store_true", help="measure nbayes tune too")
    args = ap.parse_args()
    nb = child("nbayes", args.docs)
    sk = child("sklearn", args.docs)
    print(f"{args.docs:,} documents of 20 Newsgroups, alpha {ALPHAS} x ngram_range {NGRAMS}, 5 folds")
    print(f"{'':28s}{'peak RSS':>10s}{'best score':>12s}  best params{'':20s}{'wall (loaded machine)':>22s}")
    for name, r in (("nbayes SearchCV", nb), ("scikit-learn GridSearchCV", sk)):
        print(f"{name:28s}{r['peak_mb']:8.0f} MB{r['best']:12.4f}  {json.dumps(r['params']):31s}{r['seconds']:18.1f} s")
    print(f"peak ratio nbayes / scikit-learn: {nb['peak_mb'] / sk['peak_mb']:.2f} "
          f"(both include the interpreter and the documents: {nb['data_mb']:.0f} / {sk['data_mb']:.0f} MB before the search)")
    if args.tune:
        t = tune(args.docs)
        print(f"{'nbayes tune':28s}{t['peak_mb']:8.0f} MB{'':12s}  {'':31s}{t['seconds']:18.1f} s"
              f"  (ratio to scikit-learn {t['peak_mb'] / sk['peak_mb']:.2f})")


if __name__ == "__main__":
    main()
