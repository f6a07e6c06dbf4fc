"""The whole 20 Newsgroups job, nbayes against scikit-learn, in one process.

fit on the 11,314 training documents and predict the 7,532 test documents from Python strings:
``nbayes.TextClassifier(alpha=0.01)`` against ``CountVectorizer()`` + ``MultinomialNB(alpha=0.01)``.
Median of 3 runs after a warm-up; accuracy of both; tokeniser throughput. Goal (issue #3): at
least 10x faster end to end at equal accuracy.

Run:  python benchmarks/text_20news.py
"""

from __future__ import annotations

import gzip
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

DATA = Path(os.environ.get("NBAYES_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def load(part: str) -> tuple[list[str], np.ndarray]:
    with gzip.open(DATA / "20newsgroups" / f"{part}.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


def timed(fn, repeat: int = 3) -> tuple[float, float, object]:
    """(median seconds, best seconds, last result) of ``repeat`` runs after one warm-up."""
    fn()
    times, out = [], None
    for _ in range(repeat):
        time.sleep(0.2)  # let BLAS threads of the previous contender go quiet
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), out


def main() -> None:
    import sklearn
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    import nbayes
    from nbayes.text._buffer import to_buffer
    from nbayes.text import vocab
    from nbayes.text.vocab import Tokens, learn_terms

    Xtr, ytr = load("train")
    Xte, yte = load("test")
    mb = sum(len(t.encode("utf-8")) for t in Xtr + Xte) / 1e6
    print(f"nbayes {nbayes.__version__} vs scikit-learn {sklearn.__version__}; {os.cpu_count()} cores; "
          f"20 Newsgroups: {len(Xtr)} train + {len(Xte)} test documents, {mb:.1f} MB")

    from sklearn.feature_extraction.text import HashingVectorizer

    def compare(title: str, settings: dict, vectorizer: object, goal: str) -> None:
        """nbayes' TextClassifier(alpha=0.01, **settings) against ``vectorizer`` + MultinomialNB,
        fit + predict, timed in turn in this process."""
        def ours():
            return nbayes.TextClassifier(alpha=0.01, **settings).fit(Xtr, ytr).predict(Xte)

        def theirs():
            model = MultinomialNB(alpha=0.01).fit(vectorizer.fit_transform(Xtr), ytr)
            return model.predict(vectorizer.transform(Xte))

        t_o, b_o, p_o = timed(ours)
        t_s, b_s, p_s = timed(theirs)
        print(f"\n{title}, fit + predict, median of 3 (best)")
        print(f"  nbayes        {t_o:.3f} s ({b_o:.3f})   accuracy {np.mean(p_o == yte):.4f}")
        print(f"  scikit-learn  {t_s:.3f} s ({b_s:.3f})   accuracy {np.mean(p_s == yte):.4f}")
        print(f"  ratio {t_s / t_o:.1f}x{goal}; predictions identical: {bool(np.all(p_o == p_s))}")

    compare("unigrams", {}, CountVectorizer(), " (goal >= 10x)")
    compare("bigrams, ngram_range=(1, 2)", {"ngram_range": (1, 2)}, CountVectorizer(ngram_range=(1, 2)), " (goal >= 10x)")
    compare("hashing mode, 2**20 buckets (HashingVectorizer(alternate_sign=False, norm=None))", {"n_features": 2**20},
            HashingVectorizer(n_features=2**20, alternate_sign=False, norm=None), "")

    codes = np.unique(ytr, return_inverse=True)[1]
    t_tok, _, _ = timed(lambda: learn_terms(*to_buffer(Xtr), codes, None, 20, Tokens()))
    parallel, vocab._PARALLEL_CHARS = vocab._PARALLEL_CHARS, 1 << 62  # one learner: one core
    t_one, _, _ = timed(lambda: learn_terms(*to_buffer(Xtr), codes, None, 20, Tokens()))
    vocab._PARALLEL_CHARS = parallel
    mb_tr = sum(len(t.encode("utf-8")) for t in Xtr) / 1e6
    cv = CountVectorizer()
    t_cv, _, _ = timed(lambda: cv.fit_transform(Xtr))
    print(f"\nlower-case, tokenise and count per class the training set ({mb_tr:.1f} MB)")
    print(f"  nbayes {mb_tr / t_one:.0f} MB/s on one core, {mb_tr / t_tok:.0f} MB/s on {os.cpu_count()} cores   "
          f"CountVectorizer.fit_transform {mb_tr / t_cv:.0f} MB/s")


#: a child process that fits and predicts with bigrams once (kernels compiled beforehand by the
#: parent), then reports its peak RSS and the size of the saved model: nbayes' file, or the
#: pickle of scikit-learn's vectoriser and model (what one would ship)
BIGRAM_CHILD = r"""
import pickle, sys, json
sys.path.insert(0, sys.argv[2])
from text_20news import load
import numpy as np
Xtr, ytr = load("train"); Xte, yte = load("test")
if sys.argv[1] == "nbayes":
    import nbayes
    m = nbayes.TextClassifier(alpha=0.01, ngram_range=(1, 2)).fit(Xtr, ytr)
    acc = float(np.mean(m.predict(Xte) == yte))
    m.save(sys.argv[3])
else:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    v = CountVectorizer(ngram_range=(1, 2)); m = MultinomialNB(alpha=0.01).fit(v.fit_transform(Xtr), ytr)
    acc = float(np.mean(m.predict(v.transform(Xte)) == yte))
    with open(sys.argv[3], "wb") as f:
        pickle.dump((v, m), f, protocol=pickle.HIGHEST_PROTOCOL)
# VmHWM, not ru_maxrss: the latter carries over the parent's peak across fork and exec
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"peak_mb": hwm / 1024, "accuracy": acc}))
"""


def bigram_memory() -> None:
    """Peak memory and model file with bigrams, each side in its own process (issue #15's goals:
    nbayes' peak <= 1/4 of scikit-learn's, its model file <= 1/10 of the 404 MB of 2026-11-23)."""
    import subprocess
    import sys
    import tempfile

    here = str(Path(__file__).resolve().parent)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for side in ("nbayes", "scikit-learn"):
            path = Path(tmp) / side
            r = subprocess.run([sys.executable, "-c", BIGRAM_CHILD, side, here, str(path)], capture_output=True,
                               text=True, check=True)
            out[side] = json.loads(r.stdout.strip().splitlines()[-1]) | {"file_mb": path.stat().st_size / 1e6}
    o, s = out["nbayes"], out["scikit-learn"]
    print("\nbigrams, one fit + predict per process: peak memory (RSS) and saved model")
    print(f"  nbayes        peak {o['peak_mb']:,.0f} MB   model file {o['file_mb']:,.1f} MB   accuracy {o['accuracy']:.4f}")
    print(f"  scikit-learn  peak {s['peak_mb']:,.0f} MB   pickle     {s['file_mb']:,.1f} MB   accuracy {s['accuracy']:.4f}")
    print(f"  peak ratio {o['peak_mb'] / s['peak_mb']:.2f} (goal <= 0.25); model file {o['file_mb'] / 404:.2f} of "
          f"the 404 MB of 2026-11-23 (goal <= 0.10)")


if __name__ == "__main__":
    main()
    bigram_memory()
