"""The best Naive Bayes configuration for 20 Newsgroups, chosen without looking at the test set.

5-fold stratified cross-validation on the 11,314 training documents over a small grid of
Naive Bayes-family settings (complement / multinomial, sublinear tf-idf, unigrams to trigrams,
alpha, min_df, max_df, weight normalisation); the configuration with the best CV accuracy is then
fitted on all training documents and scored once on the official test set. Issue #3's goal is
at least 86% on the test set (Rennie et al. 2003 report 86.1% for their transformed CNB).

Run:  python benchmarks/select_20news.py     (about 10 minutes on 2 cores)
"""

from __future__ import annotations

import time

import numpy as np

from text_20news import load

GRID = [
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.1),
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.1, ngram_range=(1, 2)),
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.03, ngram_range=(1, 2)),
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.3, ngram_range=(1, 2)),
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.1, ngram_range=(1, 2), min_df=2),
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.1, ngram_range=(1, 2), max_df=0.5),
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.1, ngram_range=(1, 2), norm=True),
    dict(model="multinomial", tfidf=True, sublinear_tf=True, alpha=0.01, ngram_range=(1, 2)),
    dict(model="complement", tfidf=True, sublinear_tf=True, alpha=0.1, ngram_range=(1, 3), min_df=2),
]


def main() -> None:
    from sklearn.model_selection import StratifiedKFold

    import nbayes

    X, y = load("train")
    X_test, y_test = load("test")
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    results = []
    for params in GRID:
        t0 = time.perf_counter()
        accs = []
        for a, b in folds:
            model = nbayes.TextClassifier(**params).fit([X[i] for i in a], y[a])
            accs.append(np.mean(model.predict([X[i] for i in b]) == y[b]))
        results.append((float(np.mean(accs)), params))
        print(f"CV {100 * np.mean(accs):.2f}%  {params}  ({time.perf_counter() - t0:.0f} s)", flush=True)
    best = max(results, key=lambda r: r[0])[1]
    model = nbayes.TextClassifier(**best).fit(X, y)
    print(f"chosen by CV: {best}; test accuracy {100 * np.mean(model.predict(X_test) == y_test):.2f}% (goal >= 86)")


if __name__ == "__main__":
    main()
