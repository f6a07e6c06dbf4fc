"""Calibration of Naive Bayes on 20 Newsgroups, SMS spam and adult: nbayes.CalibratedClassifier
(temperature, sigmoid, isotonic) against scikit-learn's CalibratedClassifierCV around the same
Naive Bayes, on the same folds.

Protocol: the official train/test split where there is one (20 Newsgroups, adult); SMS spam has
none, so the first 80% of the messages train and the last 20% test (as ``nbayes demo``). Every
calibrated model is fitted on the training part only (5-fold stratified out-of-fold scores, no
shuffle: ``cv=5`` in both libraries, so the folds are the same) and measured once on the test
part: log-loss, Brier score (multiclass: sum over classes, halved for two classes, as
scikit-learn's ``brier_score_loss``), top-label ECE with 15 equal-width bins, accuracy, and the
wall time of ``fit`` (the base model and the calibration together).

The Naive Bayes models: 20 Newsgroups and SMS, ``TextClassifier()`` against
``make_pipeline(CountVectorizer(), MultinomialNB())`` (the same model, fold by fold); adult,
``NaiveBayes()`` (Gaussian numbers, categorical strings, missing values left out) against
scikit-learn's best pipeline from ``benchmarks/accuracy_tabular.py`` (chosen there by CV on the
training part), so the uncalibrated models differ on adult.

Both libraries are run with ``ensemble=False`` (one model on all rows and one map on
out-of-fold scores: nbayes' default) and with ``ensemble=True`` (scikit-learn's default: 5 fold
models, each with its own map fitted on its held-out fold, probabilities averaged at prediction:
5x the model to store and to evaluate; nbayes takes the fold models from the statistics).

Run:  python benchmarks/calibration.py [--write-figures]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("NBAYES_DATA") or HERE.parents[1] / "shared" / "data")
IMG = HERE.parent / "docs" / "img"
METHODS = ("temperature", "sigmoid", "isotonic")
N_BINS = 15


def news():
    sys.path.insert(0, str(HERE))
    from text_20news import load

    Xtr, ytr = load("train")
    Xte, yte = load("test")
    return Xtr, ytr, Xte, yte


def sms():
    with gzip.open(DATA / "sms_spam" / "all.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    X = [r["text"] for r in rows]
    y = np.array([r["label"] for r in rows])
    cut = int(0.8 * len(rows))
    return X[:cut], y[:cut], X[cut:], y[cut:]


def adult():
    sys.path.insert(0, str(HERE))
    from accuracy_tabular import read

    Xtr, ytr = read("adult")
    Xte, yte = read("adult", "test")
    return Xtr, ytr, Xte, yte


def peers(name: str, Xtr, ytr, Xte):
    """(nbayes model, scikit-learn model, description)."""
    import nbayes

    if name == "adult":
        import pandas as pd

        from accuracy_tabular import sklearn_kind, sklearn_pipeline

        kind, what = sklearn_kind(name, Xtr, ytr)
        pipe = sklearn_pipeline(kind, Xtr, pd.concat([Xtr, Xte]))
        return nbayes.NaiveBayes(), pipe, f"NaiveBayes() vs scikit-learn: {what}"
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    return nbayes.TextClassifier(), make_pipeline(CountVectorizer(), MultinomialNB()), \
        "TextClassifier() vs CountVectorizer() + MultinomialNB()"


def measures(y, P, classes) -> dict:
    from nbayes.metrics import brier_score, expected_calibration_error, log_loss

    return {
        "log_loss": log_loss(y, P, classes=classes),
        "brier": brier_score(y, P, classes=classes),
        "ece": expected_calibration_error(y, P, classes=classes, n_bins=N_BINS),
        "accuracy": float(np.mean(np.asarray(classes)[np.argmax(P, axis=1)] == y)),
    }


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run(name: str, data, figures: bool) -> list[dict]:
    import sklearn.base
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import StratifiedKFold

    from nbayes.calibration import CalibratedClassifier

    Xtr, ytr, Xte, yte = data
    ours_base, their_base, what = peers(name, Xtr, ytr, Xte)
    print(f"\n## {name}: {len(ytr):,} training rows, {len(yte):,} test rows; {what}", flush=True)
    rows, curves = [], {}
    # warm-up (compiled kernels loaded, imports done) on a slice, untimed, for both libraries
    head = Xtr[:2000] if isinstance(Xtr, list) else Xtr.iloc[:2000]
    CalibratedClassifier(type(ours_base)(**ours_base.get_params()), cv=3).fit(head, ytr[:2000])
    CalibratedClassifierCV(sklearn.base.clone(their_base), method="temperature", cv=3, ensemble=False).fit(head, ytr[:2000])

    model, t = timed(lambda: type(ours_base)(**ours_base.get_params()).fit(Xtr, ytr))
    P = model.predict_proba(Xte)
    curves["uncalibrated"] = P
    rows.append({"set": name, "who": "nbayes", "method": "none", **measures(yte, P, model.classes_), "seconds": t})
    sk, t = timed(lambda: sklearn.base.clone(their_base).fit(Xtr, ytr))
    rows.append({"set": name, "who": "scikit-learn", "method": "none",
                 **measures(yte, sk.predict_proba(Xte), sk.classes_), "seconds": t})
    for method in METHODS:
        cal, t = timed(lambda: CalibratedClassifier(type(ours_base)(**ours_base.get_params()), method=method, cv=5).fit(Xtr, ytr))
        P = cal.predict_proba(Xte)
        curves[f"nbayes {method}"] = P
        extra = f"T={cal.calibrator_.temperature_:.3g}, eps={cal.calibrator_.eps_:.0e}" if method == "temperature" else ""
        rows.append({"set": name, "who": "nbayes", "method": method, **measures(yte, P, cal.classes_), "seconds": t, "note": extra})
        for ensemble in (False, True):
            if ensemble:  # nbayes' ensemble (fold models from the statistics), then scikit-learn's
                cal, t = timed(lambda: CalibratedClassifier(type(ours_base)(**ours_base.get_params()), method=method, cv=5,
                                                            ensemble=True).fit(Xtr, ytr))
                rows.append({"set": name, "who": "nbayes", "method": method + " (ensemble)",
                             **measures(yte, cal.predict_proba(Xte), cal.classes_), "seconds": t})
            c, t = timed(lambda: CalibratedClassifierCV(sklearn.base.clone(their_base), method=method, cv=5, ensemble=ensemble).fit(Xtr, ytr))
            rows.append({"set": name, "who": "scikit-learn", "method": method + (" (ensemble)" if ensemble else ""),
                         **measures(yte, c.predict_proba(Xte), c.classes_), "seconds": t})
            if name == "adult":  # the base models differ there: also scikit-learn around nbayes' own model
                c, t = timed(lambda: CalibratedClassifierCV(type(ours_base)(**ours_base.get_params()), method=method,
                                                            cv=StratifiedKFold(5), ensemble=ensemble).fit(Xtr, ytr))
                rows.append({"set": name, "who": "scikit-learn", "method": method + (" (ensemble)" if ensemble else ""),
                             **measures(yte, c.predict_proba(Xte), c.classes_), "seconds": t,
                             "note": "around nbayes' NaiveBayes"})
        for r in rows[-(6 if name == "adult" else 4):]:
            show(r)
    if figures:
        from nbayes.metrics import reliability_diagram

        IMG.mkdir(parents=True, exist_ok=True)
        reliability_diagram(yte, curves, classes=model.classes_, n_bins=N_BINS, path=IMG / f"reliability_{name}.png",
                            title=f"{name}: test set, top-label reliability")
    return rows


def show(r: dict) -> None:
    print(f"  {r['who']:>12} {r['method']:<24} log-loss {r['log_loss']:.4f}  Brier {r['brier']:.4f}  "
          f"ECE {r['ece']:.4f}  acc {100 * r['accuracy']:.2f}%  fit {r['seconds']:.2f} s  {r.get('note', '')}", flush=True)


def table(rows: list[dict]) -> str:
    out = ["| set | model | calibration | log-loss | Brier | ECE | accuracy | fit s | time vs nbayes |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    ours = {(r["set"], r["method"]): r["seconds"] for r in rows if r["who"] == "nbayes"}
    for r in rows:
        base = ours.get((r["set"], r["method"]))  # scikit-learn's ensemble against nbayes' ensemble
        ratio = "" if r["who"] == "nbayes" or not base else f"{r['seconds'] / base:.1f}x"
        method = r["method"] + (f" ({r['note']})" if r.get("note") else "")
        out.append(f"| {r['set']} | {r['who']} | {method} | {r['log_loss']:.4f} | {r['brier']:.4f} | "
                   f"{r['ece']:.4f} | {100 * r['accuracy']:.2f}% | {r['seconds']:.2f} | {ratio} |")
    return "\n".join(out)


def main() -> None:
    import sklearn

    import nbayes

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-figures", action="store_true", help="write docs/img/reliability_*.png")
    ap.add_argument("--sets", default="20news,sms,adult")
    args = ap.parse_args()
    print(f"nbayes {nbayes.__version__} vs scikit-learn {sklearn.__version__}; {os.cpu_count()} cores")
    loaders = {"20news": news, "sms": sms, "adult": adult}
    rows = []
    for name in args.sets.split(","):
        rows += run(name, loaders[name](), args.write_figures)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
