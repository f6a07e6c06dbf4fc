"""Accuracy of TextClassifier against scikit-learn's pipelines on the shared text sets.

20 Newsgroups and IMDB: the official split; SMS spam, MR and SUBJ: 10-fold stratified CV
(StratifiedKFold(10, shuffle=True, random_state=0)); the same folds for both libraries.

Configurations:
  A  TextClassifier(alpha=0.01)  vs  CountVectorizer() + MultinomialNB(alpha=0.01)
  B  TextClassifier(ngram_range=(1, 2), binary=True)  vs  CountVectorizer(ngram_range=(1, 2),
     binary=True) + MultinomialNB(): "MNB with bigrams" of Wang & Manning (2012), whose figures
     are IMDB 86.59, MR 79.0, SUBJ 93.6.

Run:  python benchmarks/accuracy_text.py [--write-docs]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("NBAYES_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
SETS = [("20newsgroups", "split"), ("imdb", "split"), ("sms_spam", "cv"), ("mr_rt_polarity", "cv"), ("subj", "cv")]
WANG_MANNING = {"imdb": 86.59, "mr_rt_polarity": 79.0, "subj": 93.6}


def load(name: str, part: str) -> tuple[list[str], np.ndarray]:
    with gzip.open(DATA / name / f"{part}.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


def folds(name: str, protocol: str):
    from sklearn.model_selection import StratifiedKFold

    if protocol == "split":
        Xa, ya = load(name, "train")
        Xb, yb = load(name, "test")
        return [(Xa, ya, Xb, yb)]
    X, y = load(name, "all")
    out = []
    for a, b in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
        out.append(([X[i] for i in a], y[a], [X[i] for i in b], y[b]))
    return out


def configs():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    import nbayes

    return {
        "A": (lambda: nbayes.TextClassifier(alpha=0.01), lambda: make_pipeline(CountVectorizer(), MultinomialNB(alpha=0.01))),
        "B": (
            lambda: nbayes.TextClassifier(ngram_range=(1, 2), binary=True),
            lambda: make_pipeline(CountVectorizer(ngram_range=(1, 2), binary=True), MultinomialNB()),
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    lines = [
        "| dataset | protocol | config | nbayes % | scikit-learn % | Wang & Manning % | time nbayes / sklearn (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, protocol in SETS:
        parts = folds(name, protocol)
        for key, (ours, theirs) in configs().items():
            acc_o, acc_s, t_o, t_s = [], [], 0.0, 0.0
            for Xa, ya, Xb, yb in parts:
                t0 = time.perf_counter()
                acc_o.append(np.mean(ours().fit(Xa, ya).predict(Xb) == yb))
                t_o += time.perf_counter() - t0
                t0 = time.perf_counter()
                acc_s.append(np.mean(theirs().fit(Xa, ya).predict(Xb) == yb))
                t_s += time.perf_counter() - t0
            wm = f"{WANG_MANNING[name]:.1f}" if key == "B" and name in WANG_MANNING else ""
            row = (f"| {name} | {'official split' if protocol == 'split' else '10-fold CV'} | {key} | "
                   f"{100 * np.mean(acc_o):.2f} | {100 * np.mean(acc_s):.2f} | {wm} | {t_o:.1f} / {t_s:.1f} |")
            print(row, flush=True)
            lines.append(row)
    table = "\n".join(lines)
    if args.write_docs:
        doc = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
        text = doc.read_text()
        start, end = "<!-- text-accuracy:start -->", "<!-- text-accuracy:end -->"
        head, rest = text.split(start)
        _, tail = rest.split(end)
        doc.write_text(f"{head}{start}\n{table}\n{end}{tail}")


if __name__ == "__main__":
    main()
