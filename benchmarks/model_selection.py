"""Cross-validation and grid search from statistics against scikit-learn (issue #9).

On the 11,314 training documents of 20 Newsgroups (bydate):
1. a grid search over 10 values of alpha x 10 stratified folds, nbayes ``SearchCV`` over
   ``TextClassifier`` against ``GridSearchCV(make_pipeline(CountVectorizer(), MultinomialNB()))``
   with the same folds: the mean scores must be identical, and the time of each is printed;
2. 10-fold ``cross_val_predict`` (probabilities) of each: the largest difference and the times.
Both run in this process, one after the other; scikit-learn with n_jobs=1 (as nbayes uses the
machine's cores in its kernels, the ratio is also printed against n_jobs=-1).

Run:  python benchmarks/model_selection.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from text_20news import load

ALPHAS = [0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0]


def main() -> None:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.model_selection import cross_val_predict as sk_cvp
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    import nbayes
    from nbayes.model_selection import SearchCV, cross_val_predict

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2,000 documents (a smoke run)")
    ap.add_argument("--jobs", type=int, default=1, help="scikit-learn's n_jobs (default 1)")
    args = ap.parse_args()
    X, y = load("train")
    if args.quick:
        X, y = X[:2000], y[:2000]
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    print(f"20 Newsgroups train: {len(X)} documents, {len(set(y.tolist()))} classes; {os.cpu_count()} cores")

    # warm the compiled kernels (for every kind of text buffer the corpus needs) on a sample,
    # so that no side pays one-off compilation inside the timings
    sample = list(range(0, len(X), 25))
    SearchCV(nbayes.TextClassifier(), {"alpha": [1.0]}, cv=2).fit([X[i] for i in sample], y[sample])

    t0 = time.perf_counter()
    ours = SearchCV(nbayes.TextClassifier(), {"alpha": ALPHAS}, cv=folds).fit(X, y)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    theirs = GridSearchCV(make_pipeline(CountVectorizer(), MultinomialNB()),
                          {"multinomialnb__alpha": ALPHAS}, cv=folds, n_jobs=args.jobs).fit(X, y)
    t_theirs = time.perf_counter() - t0
    a, b = ours.cv_results_, theirs.cv_results_
    split_diff = max(float(np.max(np.abs(a[f"split{i}_test_score"] - b[f"split{i}_test_score"]))) for i in range(10))
    print("\nGrid search: 10 alphas x 10 folds")
    print(f"{'alpha':>8} {'nbayes mean':>12} {'sklearn mean':>13}")
    for i, alpha in enumerate(ALPHAS):
        print(f"{alpha:>8} {a['mean_test_score'][i]:>12.6f} {b['mean_test_score'][i]:>13.6f}")
    print(f"largest difference of a split score: {split_diff:.1e}; best alpha nbayes "
          f"{ours.best_params_['alpha']} sklearn {theirs.best_params_['multinomialnb__alpha']}")
    print(f"time: nbayes {t_ours:.2f} s, scikit-learn {t_theirs:.2f} s (n_jobs={args.jobs}): "
          f"{t_theirs / t_ours:.1f}x")

    t0 = time.perf_counter()
    p_ours = cross_val_predict(nbayes.TextClassifier(alpha=0.01), X, y, cv=folds, method="predict_proba")
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    p_theirs = sk_cvp(make_pipeline(CountVectorizer(), MultinomialNB(alpha=0.01)), X, y, cv=folds,
                      method="predict_proba", n_jobs=args.jobs)
    t_theirs = time.perf_counter() - t0
    acc_ours = float(np.mean(ours.classes_[p_ours.argmax(1)] == y))
    acc_theirs = float(np.mean(np.unique(y)[p_theirs.argmax(1)] == y))
    print("\n10-fold cross_val_predict (predict_proba), alpha=0.01")
    print(f"largest difference of a probability: {np.abs(p_ours - p_theirs).max():.1e}; "
          f"out-of-fold accuracy nbayes {acc_ours:.4f} sklearn {acc_theirs:.4f}")
    print(f"time: nbayes {t_ours:.2f} s, scikit-learn {t_theirs:.2f} s: {t_theirs / t_ours:.1f}x")


if __name__ == "__main__":
    main()
