"""Accuracy of nbayes.NaiveBayes (default settings) against scikit-learn's best Naive Bayes
pipeline on the tabular sets of ../shared/data, on the same folds.

Protocol: the official split where there is one (adult, optdigits), else 10-fold stratified CV
(StratifiedKFold(10, shuffle=True, random_state=0)). nbayes reads each CSV with pandas (only
empty fields are missing) and takes the DataFrame as is: dtypes choose the column types, missing
values are left out of the product, unseen categories are smoothed.

scikit-learn's Naive Bayes cannot take missing values or unseen categories, so its pipelines
impute (most frequent value for strings, mean for numbers) and encode strings with an
OrdinalEncoder whose category lists are taken from the whole dataset (this leaks the list of
values, not labels: without it CategoricalNB raises on a value unseen in a training fold).
All-categorical sets use CategoricalNB, all-numeric sets GaussianNB; for adult (mixed) the
better of (a) CategoricalNB on strings + numbers discretised into 10 quantile bins and
(b) GaussianNB on one-hot strings + numbers is chosen by 5-fold CV on the training part only.

Run:  python benchmarks/accuracy_tabular.py [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(os.environ.get("NBAYES_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
SETS = [
    "house_votes_84", "car", "tic_tac_toe", "breast_cancer", "adult", "pima_diabetes", "ionosphere", "optdigits",
]


def read(name: str, part: str = "data") -> tuple[pd.DataFrame, np.ndarray]:
    df = pd.read_csv(DATA / name / f"{part}.csv.gz", keep_default_na=False, na_values=[""])
    y = df.pop("class").astype(str).to_numpy()
    return df, y


def splits(name: str):
    """(X_train, y_train, X_test, y_test) per fold, and the protocol's name."""
    from sklearn.model_selection import StratifiedKFold

    X, y = read(name)
    if (DATA / name / "test.csv.gz").exists():
        Xt, yt = read(name, "test")
        return [(X, y, Xt, yt)], "official split", pd.concat([X, Xt])
    folds = StratifiedKFold(10, shuffle=True, random_state=0).split(X, y)
    return [(X.iloc[a], y[a], X.iloc[b], y[b]) for a, b in folds], "10-fold CV", X


def sklearn_pipeline(kind: str, frame: pd.DataFrame, all_data: pd.DataFrame):
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.naive_bayes import CategoricalNB, GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder, OrdinalEncoder

    strings = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    numbers = [c for c in frame.columns if c not in strings]
    cats = [sorted(all_data[c].dropna().unique()) for c in strings]
    encode = make_pipeline(SimpleImputer(strategy="most_frequent"), OrdinalEncoder(categories=cats))
    if kind == "categorical":
        return make_pipeline(encode, CategoricalNB())
    if kind == "gaussian":
        return make_pipeline(SimpleImputer(strategy="mean"), GaussianNB())
    if kind == "binned":
        bins = make_pipeline(
            SimpleImputer(strategy="mean"),
            KBinsDiscretizer(n_bins=10, encode="ordinal", strategy="quantile", quantile_method="averaged_inverted_cdf"),
        )
        ct = ColumnTransformer([("s", encode, strings), ("n", bins, numbers)])
        # every bin index below 10 is a category; min_categories covers bins unseen in a fold
        return make_pipeline(ct, CategoricalNB(min_categories=np.array([len(c) for c in cats] + [10] * len(numbers))))
    onehot = make_pipeline(
        SimpleImputer(strategy="most_frequent"),
        OneHotEncoder(categories=cats, sparse_output=False, handle_unknown="ignore"),
    )
    ct = ColumnTransformer([("s", onehot, strings), ("n", SimpleImputer(strategy="mean"), numbers)])
    return make_pipeline(ct, GaussianNB())


def sklearn_kind(name: str, X: pd.DataFrame, y: np.ndarray) -> tuple[str, str]:
    strings = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    if len(strings) == X.shape[1]:
        return "categorical", "impute most frequent, ordinal-encode, CategoricalNB"
    if not strings:
        return "gaussian", "impute mean, GaussianNB"
    from sklearn.model_selection import cross_val_score

    best = max(
        ("binned", "onehot"),
        key=lambda k: cross_val_score(sklearn_pipeline(k, X, X), X, y, cv=5).mean(),
    )
    what = {
        "binned": "impute, ordinal-encode strings, 10 quantile bins for numbers, CategoricalNB",
        "onehot": "impute, one-hot strings, GaussianNB",
    }[best]
    return best, what + " (chosen by 5-fold CV on the training part)"


def evaluate(name: str) -> dict:
    import nbayes

    folds, protocol, all_data = splits(name)
    kind, what = sklearn_kind(name, folds[0][0], folds[0][1])
    ours, theirs, t_ours, t_theirs = [], [], 0.0, 0.0
    for Xa, ya, Xb, yb in folds:
        t0 = time.perf_counter()
        model = nbayes.NaiveBayes().fit(Xa, ya)
        ours.append(float(np.mean(model.predict(Xb) == yb)))
        t_ours += time.perf_counter() - t0
        t0 = time.perf_counter()
        pipe = sklearn_pipeline(kind, Xa, all_data).fit(Xa, ya)
        theirs.append(float(np.mean(pipe.predict(Xb) == yb)))
        t_theirs += time.perf_counter() - t0
    n = len(all_data)
    return {
        "name": name, "rows": n, "protocol": protocol, "ours": ours, "theirs": theirs,
        "what": what, "t_ours": t_ours, "t_theirs": t_theirs,
    }


def fmt(scores: list[float]) -> str:
    return f"{100 * np.mean(scores):.1f}" + (f" ± {100 * np.std(scores):.1f}" if len(scores) > 1 else "")


def main() -> None:
    import warnings

    warnings.filterwarnings("ignore", message="Bins whose width are too small")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-docs", action="store_true", help="replace the table in docs/benchmarks.md")
    args = ap.parse_args()
    rows = [evaluate(name) for name in SETS]
    lines = [
        "| dataset | rows | protocol | nbayes `NaiveBayes()` accuracy % | scikit-learn accuracy % | what scikit-learn's pipeline had to do | fit+predict time nbayes / sklearn (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['rows']} | {r['protocol']} | {fmt(r['ours'])} | {fmt(r['theirs'])} | "
            f"{r['what']} | {r['t_ours']:.2f} / {r['t_theirs']:.2f} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.write_docs:
        doc = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
        text = doc.read_text()
        start, end = "<!-- tabular-accuracy:start -->", "<!-- tabular-accuracy:end -->"
        head, rest = text.split(start)
        _, tail = rest.split(end)
        doc.write_text(f"{head}{start}\n{table}\n{end}{tail}")


if __name__ == "__main__":
    main()
