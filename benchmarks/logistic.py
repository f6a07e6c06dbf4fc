"""Logistic regression on 20 Newsgroups tf-idf: nbayes against scikit-learn's lbfgs, one process.

The same matrix for both (``TfidfVectorizer(sublinear_tf=True)`` on the 11,314 training
documents): ``nbayes.LogisticRegression(C=10)`` (trust-region Newton, default settings) against
``sklearn.linear_model.LogisticRegression(C=10, max_iter=1000)``. Prints the final objective
(sum of log-losses + ||W||^2 / (2C), computed the same way for both), test accuracy and the
median time of ``--repeat`` fits. Goal (issue #4): objective no worse than scikit-learn's by more
than 0.1%, accuracy within 0.3 points, at least 3x faster.

Run:  python benchmarks/logistic.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from text_20news import load


def objective(model, X, y, C: float) -> float:
    logp = model.predict_log_proba(X)
    codes = np.searchsorted(model.classes_, y)
    return float(-logp[np.arange(len(y)), codes].sum() + np.sum(model.coef_**2) / (2 * C))


def timed(fit, repeat: int):
    times, model = [], None
    for _ in range(repeat):
        time.sleep(0.2)  # let BLAS threads of the previous contender go quiet
        t0 = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), model


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import sklearn
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression as SkLR

    import nbayes

    train, y_train = load("train")
    test, y_test = load("test")
    vec = TfidfVectorizer(sublinear_tf=True)
    X_train = vec.fit_transform(train)
    X_test = vec.transform(test)
    C = 10.0
    print(f"20 Newsgroups tf-idf: {X_train.shape[0]} x {X_train.shape[1]}, nnz {X_train.nnz}, "
          f"{len(set(y_train))} classes; {os.cpu_count()} cores; scikit-learn {sklearn.__version__}")

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter=2: only compiles the kernels
        nbayes.LogisticRegression(C=C, max_iter=2).fit(X_train[::50], y_train[::50])
    rows = []
    for name, fit in (
        ("nbayes (newton)", lambda: nbayes.LogisticRegression(C=C).fit(X_train, y_train)),
        ("scikit-learn lbfgs", lambda: SkLR(C=C, max_iter=1000).fit(X_train, y_train)),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seconds, model = timed(fit, args.repeat)
        obj = objective(model, X_train, y_train, C)
        acc = float(np.mean(model.predict(X_test) == y_test))
        rows.append((name, seconds, obj, acc, int(np.max(model.n_iter_))))
    print(f"{'':22} {'seconds':>8} {'objective':>12} {'accuracy':>9} {'iterations':>10}")
    for name, seconds, obj, acc, it in rows:
        print(f"{name:22} {seconds:8.2f} {obj:12.3f} {100 * acc:8.2f}% {it:10d}")
    ours, theirs = rows[0], rows[1]
    print(f"speed-up: {theirs[1] / ours[1]:.1f}x (goal >= 3x); objective vs scikit-learn: "
          f"{100 * (ours[2] - theirs[2]) / theirs[2]:+.3f}% (goal <= +0.1%); accuracy "
          f"{100 * (ours[3] - theirs[3]):+.2f} points (goal within 0.3)")


if __name__ == "__main__":
    main()
