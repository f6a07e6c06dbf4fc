"""Model files written by the numba build of nbayes (before the kernels were compiled ahead of
time), and the data they were trained on: the compiled kernels must load them and predict
identically, and write the same bytes from the same data (tests/io/test_numba_era_files.py).

The files in fixtures/numba_era/ were made once by running this module with nbayes at commit
a05095a (the last numba build) and ``NUMBA_NUM_THREADS=2``:

    python tests/io/numba_era.py tests/io/fixtures/numba_era
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

THREADS = 2

DOCS = ["Cheap PILLS now, cheap offer!", "meeting at noon about the budget", "win cash now: call 0800",
        "notes from the weather meeting", "the budget meeting moved to friday", "FREE cash, free pills, call now",
        "lunch at noon?", "Größe ÜBER alles: déjà vu", "日本語 テキスト and more text", "offer ends friday, call"]
TEST_DOCS = ["a cheap offer", "noon meeting", "cash now cheap", "weather notes", "unknown words only", ""]


def data(kind: str) -> tuple[Any, Any, Any, Any]:
    """(X, y, sample_weight, X_test) of a model kind, the same on every machine."""
    rng = np.random.default_rng(26)
    if kind == "dense":
        y = rng.integers(0, 3, 400)
        X = rng.normal(size=(400, 5)) + y[:, None] * 0.7
        X[rng.random(X.shape) < 0.05] = np.nan
        return X, y, rng.random(400) * 2, np.nan_to_num(X[:20]) + 0.1
    if kind == "counts":
        y = rng.integers(0, 3, 300)
        X = rng.poisson(1.0 + y[:, None] * 0.5, size=(300, 8)).astype(float)
        return X, y, rng.random(300), X[:20]
    if kind == "categories":
        y = rng.integers(0, 2, 300)
        X = (rng.integers(0, 4, (300, 4)) + y[:, None]) % 5
        return X.astype(float), y, None, X[:20].astype(float)
    if kind == "text":
        y = np.array([1, 0, 1, 0, 0, 1, 0, 2, 2, 1])
        return DOCS * 5, np.tile(y, 5), np.linspace(0.5, 2.0, 50), TEST_DOCS
    raise ValueError(kind)


def models() -> dict[str, tuple[str, Any]]:
    """name -> (data kind, unfitted model)."""
    import nbayes

    return {
        "gaussian": ("dense", nbayes.GaussianNB()),
        "multinomial": ("counts", nbayes.MultinomialNB(alpha=0.5)),
        "complement": ("counts", nbayes.ComplementNB()),
        "bernoulli": ("counts", nbayes.BernoulliNB(binarize=1.0)),
        "categorical": ("categories", nbayes.CategoricalNB()),
        "logistic": ("dense_filled", nbayes.LogisticRegression(C=0.5)),
        "text_words": ("text", nbayes.TextClassifier(alpha=0.1)),
        "text_bigrams": ("text", nbayes.TextClassifier(ngram_range=(1, 2), stop_words=["the", "at"])),
        "text_chars": ("text", nbayes.TextClassifier(analyzer="char_wb", ngram_range=(2, 4))),
        "text_hashing": ("text", nbayes.TextClassifier(n_features=64, model="complement")),
        "text_nblr": ("text", nbayes.TextClassifier(model="nblr", ngram_range=(1, 2))),
    }


def fitted(name: str) -> tuple[Any, Any]:
    """(the model fitted on its data, its test input)."""
    kind, model = models()[name]
    X, y, w, X_test = data("dense" if kind == "dense_filled" else kind)
    if kind == "dense_filled":
        X = np.nan_to_num(X)
    if name in ("text_nblr", "categorical"):
        w = None
    return model.fit(X, y, sample_weight=w), X_test


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name in models():
        model, X_test = fitted(name)
        model.save(out / f"{name}.nbm")
        expected[name] = {"log_proba": model.predict_log_proba(X_test).tolist(),
                          "predict": [str(p) for p in model.predict(X_test)]}
    (out / "expected.json").write_text(json.dumps(expected, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
