"""Label shift on 20 Newsgroups: the class prior of unlabelled samples, nbayes against QuaPy.

Train on the 11,314 training documents. Draw test samples of 1,000 documents from the 7,532 test
documents, each with class shares from a Dirichlet(1) over the 20 classes (fixed seed; a class
drawn more often than it has documents is sampled with replacement, as QuaPy's samplers do). The
true prior of a sample is its class shares. Report the mean absolute error (over classes, then
samples) of

- nbayes: ``TextClassifier`` with ``model.estimate_prior(sample, calibration=ShiftCalibration
  fitted once on the training documents)``: EM (Saerens et al. 2002) on bias-corrected
  temperature-scaled out-of-fold posteriors (Alexandari et al. 2020), and BBSE; also EM on the
  uncalibrated posteriors;
- QuaPy's EMQ (and EMQ with BCTS) and PACC over scikit-learn's ``LogisticRegression`` on tf-idf
  (``TfidfVectorizer()``, ``max_iter=1000``);

and the accuracy of the nbayes model on the samples before and after ``with_prior(estimate)``,
and how often the likelihood-ratio test says "shifted". Goal (issue #30): nbayes' MAE <= the best
of QuaPy's EMQ and PACC; accuracy after >= before.

Run:  python benchmarks/prior_shift.py [n_samples]   (default 30)
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("NBAYES_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
SAMPLE = 1000
SEED = 2026


def load(part: str) -> tuple[list[str], np.ndarray]:
    with gzip.open(DATA / "20newsgroups" / f"{part}.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


def samples(y: np.ndarray, classes: np.ndarray, n_samples: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(row indices, true prior) of each sample: shares ~ Dirichlet(1), counts ~ multinomial."""
    rng = np.random.default_rng(SEED)
    by_class = [np.flatnonzero(y == c) for c in classes]
    out = []
    for _ in range(n_samples):
        counts = rng.multinomial(SAMPLE, rng.dirichlet(np.ones(len(classes))))
        rows = np.concatenate([rng.choice(idx, size=k, replace=k > len(idx)) for idx, k in zip(by_class, counts)])
        out.append((rng.permutation(rows), counts / SAMPLE))
    return out


def main() -> None:
    import nbayes
    from nbayes.shift import ShiftCalibration

    n_samples = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    Xtr, ytr = load("train")
    Xte, yte = load("test")
    classes = np.unique(ytr)
    draws = samples(yte, classes, n_samples)
    print(f"20 Newsgroups: {len(Xtr)} train documents; {n_samples} test samples of {SAMPLE} documents, "
          f"shares ~ Dirichlet(1) over {len(classes)} classes (seed {SEED})")

    # ---------------------------------------------------------------- nbayes
    t0 = time.perf_counter()
    model = nbayes.TextClassifier(alpha=0.01).fit(Xtr, ytr)
    cal = ShiftCalibration(cv=5).fit(model, Xtr, ytr)
    t_fit = time.perf_counter() - t0
    print(f"\nnbayes TextClassifier(alpha=0.01) + ShiftCalibration(cv=5): {t_fit:.1f} s "
          f"(BCTS beta {cal.beta:.3f}, eps {cal.eps:g})")
    err: dict[str, list[float]] = {"nbayes EM + BCTS (default)": [], "nbayes BBSE": [], "nbayes EM, uncalibrated": []}
    acc_before, acc_after, shifted, t_est = [], [], 0, 0.0
    for rows, true in draws:
        docs = [Xte[i] for i in rows]
        t1 = time.perf_counter()
        est = model.estimate_prior(docs, calibration=cal, n_bootstrap=0)
        t_est += time.perf_counter() - t1
        err["nbayes EM + BCTS (default)"].append(float(np.mean(np.abs(est.prior - true))))
        bb = model.estimate_prior(docs, calibration=cal, method="bbse", n_bootstrap=0)
        err["nbayes BBSE"].append(float(np.mean(np.abs(bb.prior - true))))
        raw = model.estimate_prior(docs, n_bootstrap=0)
        err["nbayes EM, uncalibrated"].append(float(np.mean(np.abs(raw.prior - true))))
        shifted += est.shifted
        acc_before.append(float(np.mean(model.predict(docs) == yte[rows])))
        acc_after.append(float(np.mean(model.with_prior(est).predict(docs) == yte[rows])))
    t1 = time.perf_counter()
    boot = model.estimate_prior(docs, calibration=cal, random_state=0)
    print(f"  estimate_prior: {t_est / n_samples:.2f} s per sample; with the default 100 bootstrap resamples "
          f"{time.perf_counter() - t1:.2f} s (last sample's 95% intervals: mean width {np.mean(boot.upper - boot.lower):.4f}, "
          f"cover the truth for {np.sum((boot.lower <= true) & (true <= boot.upper))} of {len(true)} classes)")

    # ---------------------------------------------------------------- QuaPy
    from quapy.method.aggregative import EMQ, PACC
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    t0 = time.perf_counter()
    vec = TfidfVectorizer()
    Ttr = vec.fit_transform(Xtr)
    Tte = vec.transform(Xte)
    code = {c: i for i, c in enumerate(classes)}
    ctr = np.array([code[c] for c in ytr])
    quantifiers = {
        "QuaPy EMQ": EMQ(LogisticRegression(max_iter=1000)),
        "QuaPy PACC": PACC(LogisticRegression(max_iter=1000)),
        "QuaPy EMQ + BCTS": EMQ.EMQ_BCTS(LogisticRegression(max_iter=1000)),
    }
    for name, q in quantifiers.items():
        q.fit(Ttr, ctr)
        err[name] = [float(np.mean(np.abs(q.predict(Tte[rows]) - true))) for rows, true in draws]
    print(f"QuaPy (LogisticRegression on tf-idf), fit of the three: {time.perf_counter() - t0:.1f} s")

    print(f"\nmean absolute error of the estimated prior over {n_samples} samples (mean ± s.e.)")
    for name, e in err.items():
        print(f"  {name:32s} {np.mean(e):.5f} ± {np.std(e, ddof=1) / np.sqrt(len(e)):.5f}")
    ours = np.mean(err["nbayes EM + BCTS (default)"])
    best = min(np.mean(err["QuaPy EMQ"]), np.mean(err["QuaPy PACC"]))
    print(f"  goal: nbayes {ours:.5f} <= QuaPy's best of EMQ and PACC {best:.5f}: {'met' if ours <= best else 'NOT met'}")
    print(f"\naccuracy on the samples: before {np.mean(acc_before):.4f}, after with_prior(estimate) "
          f"{np.mean(acc_after):.4f} (goal: after >= before: {'met' if np.mean(acc_after) >= np.mean(acc_before) else 'NOT met'})")
    print(f"likelihood-ratio test: shift detected (p < 0.05) in {shifted} of {n_samples} samples")


if __name__ == "__main__":
    main()
