"""Multi-label text classification on Reuters-21578 ModApte (90 categories, 7,769 train /
3,019 test; issue 17): nbayes.MultiLabel (Naive Bayes with out-of-fold thresholds, and NBLR)
against scikit-learn's one-vs-rest baselines and fastText ``-loss ova``.

    NBAYES_DATA=../shared/data python benchmarks/multilabel.py [--skip-nblr] [--only=NAME ...]

Prints micro-F1, macro-F1, precision@1 and the seconds of fit + threshold tuning + predict of
each (after one untimed warm-up of every contender on 300 documents: imports and the first calls'
loading of compiled kernels are per process), and the time ratios to scikit-learn's
one-vs-rest Naive Bayes and logistic regression. The data is research use
only (see its README)."""

from __future__ import annotations

import gzip
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

import nbayes

DATA = Path(os.environ.get("NBAYES_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def read(name: str) -> tuple[list[str], list[list[str]]]:
    with gzip.open(DATA / "reuters21578" / name, "rt") as f:
        rows = [json.loads(line) for line in f]
    return [r["text"] for r in rows], [r["labels"] for r in rows]


def scores(labels: list[str], pred: np.ndarray, proba: np.ndarray, truth: list[list[str]]) -> dict[str, float]:
    index = {c: j for j, c in enumerate(labels)}
    T = np.zeros(pred.shape, dtype=bool)
    for i, row in enumerate(truth):
        for c in row:
            if c in index:
                T[i, index[c]] = True
    D = pred.astype(bool)
    tp, fp, fn = (T & D).sum(0), (~T & D).sum(0), (T & ~D).sum(0)
    d = 2 * tp + fp + fn
    return {
        "micro_f1": float(2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum())),
        "macro_f1": float(np.mean(np.where(d > 0, 2 * tp / np.maximum(d, 1), 0.0))),
        "p_at_1": float(np.mean(T[np.arange(len(T)), np.argmax(proba, axis=1)])),
    }


def run_nbayes(base, Xtr, ytr, Xte, **kw):
    t = time.perf_counter()
    ml = nbayes.MultiLabel(base, **kw).fit(Xtr, ytr)
    pred, P = ml.predict(Xte), ml.predict_proba(Xte)
    return ml.classes_.tolist(), pred, P, time.perf_counter() - t


def run_sklearn(kind, Xtr, ytr, Xte):
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.preprocessing import MultiLabelBinarizer

    t = time.perf_counter()
    mlb = MultiLabelBinarizer().fit(ytr)
    if kind == "nb":
        vec, clf = CountVectorizer(), OneVsRestClassifier(MultinomialNB(alpha=0.01))
    else:
        vec, clf = TfidfVectorizer(), OneVsRestClassifier(LogisticRegression(C=10, max_iter=1000))
    clf.fit(vec.fit_transform(Xtr), mlb.transform(ytr))
    A = vec.transform(Xte)
    pred, P = clf.predict(A), clf.predict_proba(A)
    return list(mlb.classes_), pred, P, time.perf_counter() - t


def fasttext_module():
    """The fastText package, or None; benchmarks/fasttext.py (the 20 Newsgroups comparison)
    would shadow it, since a script's folder comes first on sys.path."""
    here = Path(__file__).resolve().parent
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if Path(p or os.getcwd()).resolve() != here]
    local = sys.modules.get("fasttext")
    if local is not None and Path(getattr(local, "__file__", "") or "").resolve().parent == here:
        del sys.modules["fasttext"]
    try:
        import fasttext

        return fasttext
    except ImportError:
        return None
    finally:
        sys.path[:] = saved


def run_fasttext(Xtr, ytr, Xte):
    import tempfile

    fasttext = fasttext_module()
    t = time.perf_counter()
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for x, ys in zip(Xtr, ytr):
            f.write(" ".join(f"__label__{y}" for y in ys) + " " + " ".join(x.lower().split()) + "\n")
    model = fasttext.train_supervised(f.name, loss="ova", epoch=25, lr=0.5, wordNgrams=2, verbose=0, thread=2)
    os.unlink(f.name)
    labels = sorted({y for ys in ytr for y in ys})
    index = {c: j for j, c in enumerate(labels)}
    pred, P = np.zeros((len(Xte), len(labels)), dtype=int), np.zeros((len(Xte), len(labels)))
    for i, x in enumerate(Xte):
        # the wheel's predict() fails under NumPy 2 (np.array(copy=False)): its C++ binding directly
        pairs = model.f.predict(" ".join(x.lower().split()) + "\n", -1, 0.0, "strict")
        for p, g in pairs:
            j = index[g[len("__label__"):]]
            P[i, j] = p
            pred[i, j] = int(p >= 0.5)
    return labels, pred, P, time.perf_counter() - t


def main() -> None:
    Xtr, ytr = read("train.jsonl.gz")
    Xte, yte = read("test.jsonl.gz")
    runs = {
        "nbayes NB, thresholds from 5-fold OOF statistics": lambda a, b, c: run_nbayes(
            nbayes.TextClassifier(alpha=0.1, stop_words="english"), a, b, c),
        "nbayes NB, threshold 0.5 (as sklearn)": lambda a, b, c: run_nbayes(
            nbayes.TextClassifier(alpha=0.01), a, b, c, threshold=0.5, empty="keep"),
        "sklearn CountVectorizer + OvR(MultinomialNB(alpha=0.01))": lambda a, b, c: run_sklearn("nb", a, b, c),
        "sklearn tf-idf + OvR(LogisticRegression(C=10))": lambda a, b, c: run_sklearn("lr", a, b, c),
    }
    if "--skip-nblr" not in sys.argv:
        runs["nbayes NBLR, thresholds from 3-fold OOF (warm fold fits)"] = lambda a, b, c: run_nbayes(
            nbayes.TextClassifier(model="nblr", stop_words="english"), a, b, c, cv=3)
        runs["nbayes NBLR, threshold 0.5"] = lambda a, b, c: run_nbayes(
            nbayes.TextClassifier(model="nblr", stop_words="english"), a, b, c, threshold=0.5)
    if fasttext_module() is not None:
        runs["fastText -loss ova (25 epochs, bigrams), threshold 0.5"] = run_fasttext
    else:
        print("fastText not installed (pip install fasttext-wheel): skipped")
    only = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")]
    if only:  # e.g. --only=fastText --only=sklearn CountVectorizer: a subset, ratios where defined
        runs = {k: v for k, v in runs.items() if any(o in k for o in only)}
    # every contender once on 300 documents first, untimed: imports, numba loading its compiled
    # kernels, first-call set-up are one-time costs of a process, not of a fit
    for fn in runs.values():
        fn(Xtr[:300], ytr[:300], Xte[:20])
    results = {}
    for name, fn in runs.items():
        labels, pred, P, seconds = fn(Xtr, ytr, Xte)
        results[name] = {**scores(labels, pred, P, yte), "seconds": seconds}
        r = results[name]
        print(f"{name:60s} micro-F1 {r['micro_f1']:.4f}  macro-F1 {r['macro_f1']:.4f}  "
              f"P@1 {r['p_at_1']:.4f}  {seconds:7.2f} s", flush=True)
    ref = results.get("sklearn CountVectorizer + OvR(MultinomialNB(alpha=0.01))", {}).get("seconds", np.nan)
    ref_lr = results.get("sklearn tf-idf + OvR(LogisticRegression(C=10))", {}).get("seconds", np.nan)
    print("\ntime ratios (this run; timings on a shared machine are noisy):")
    for name, r in results.items():
        print(f"  {name:60s} x{r['seconds'] / ref:6.2f} of sklearn OvR NB, x{r['seconds'] / ref_lr:6.2f} of sklearn OvR LR")


if __name__ == "__main__":
    main()
