"""Nigam et al. (2000) on 20 Newsgroups bydate: Naive Bayes with few labels, plus EM.

Labelled sets of 1, 2, 5, 10, 20 and 50 documents per class drawn from train (seeds 0..4), the
rest of train as unlabelled documents, accuracy on the official test set, for

* supervised NB: ``MultinomialNB(alpha=0.01)`` on the labelled documents;
* EM: the same with ``X_unlabeled`` (lambda = 1, the paper's basic EM);
* EM-lambda: ``nbayes.EM(model, unlabeled_weight="cv")`` (lambda by 3-fold CV on the labelled documents);
* the peer: scikit-learn's ``SelfTrainingClassifier(MultinomialNB(alpha=0.01))`` (unlabelled
  rows labelled -1, its defaults: threshold 0.75, 10 iterations);
* with ``--components K``: also EM with K mixture components per class
  (``nbayes.EM(model, n_components=K)``, Nigam et al. section 5.3; ``--n-init`` random starts, seed 0), alone
  (``--only-components`` skips EM-lambda and SelfTraining, to save time).

With ``--api`` the comparison is made from outside, through ``TextClassifier`` on the raw
documents, as users call it (docs/semi-supervised.md): ``TextClassifier(**API_SETTINGS)`` fitted
on the labelled documents against the same with ``X_unlabeled=`` the rest (lambda by its default,
``"auto"``: cross-validation on the labelled documents), and ``TextClassifier(alpha=0.01)`` both
ways (the plain vocabulary); ``--unlabeled N`` uses N of the other documents (default all).

Otherwise every model sees the same count matrix: nbayes' ``Vectorizer`` (scikit-learn's CountVectorizer
tokens) fitted on all of train, as Nigam's vocabulary over all documents. Prints the table (mean
and standard deviation over the seeds) and timings, and writes docs/img/em_20news.png.

Run:  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/em_20news.py --api --sizes 10 --seeds 3 --no-plot
      OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/em_20news.py --seeds 3 [--features nigam|cv]
      [--components 2 [--n-init 1] [--only-components] --sizes 10 --seeds 2 --no-plot]
(one BLAS thread: the E-step's small dense products oversubscribe the cores otherwise; the figures
in docs/semi-supervised.md are --seeds 3, about 6 minutes each on 2 cores)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from text_20news import load

ALPHA = 0.01
#: the documented settings of semi-supervised text (docs/semi-supervised.md)
API_SETTINGS = {"alpha": 0.01, "stop_words": "english", "min_df": 2}
METHODS = ("supervised NB", "EM", "EM-lambda (cv)", "SelfTraining")


def draw(y: np.ndarray, per_class: int, seed: int) -> np.ndarray:
    """Indices of ``per_class`` training documents of each class, drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    return np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False)
                                   for c in np.unique(y)]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sizes", default="1,2,5,10,20,50")
    ap.add_argument("--features", choices=("plain", "nigam", "cv"), default="plain",
                    help="plain: CountVectorizer defaults; nigam: English stop words removed and terms "
                         "in fewer than 2 documents dropped; cv: per labelled set, the one of the two "
                         "with the better cross-validated accuracy of supervised NB on the labelled "
                         "documents (blind to the test set)")
    ap.add_argument("--plot", default=None)
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--components", type=int, default=None,
                    help="also run EM with this many mixture components per class (n_components)")
    ap.add_argument("--n-init", type=int, default=1, help="random starts of the components' EM")
    ap.add_argument("--only-components", action="store_true",
                    help="with --components: run supervised NB, EM and the components' EM only")
    ap.add_argument("--api", action="store_true",
                    help="measure through TextClassifier on the documents (supervised vs fit(..., X_unlabeled=))")
    ap.add_argument("--unlabeled", type=int, default=None, help="with --api: this many unlabelled documents")
    args = ap.parse_args()
    if args.api:
        return api(args)
    img = Path(__file__).resolve().parents[1] / "docs" / "img"
    args.plot = args.plot or str(img / {"plain": "em_20news.png", "nigam": "em_20news_nigam.png",
                                         "cv": "em_20news_cv.png"}[args.features])
    sizes = [int(s) for s in args.sizes.split(",")]

    import sklearn
    from sklearn.naive_bayes import MultinomialNB as SkMNB
    from sklearn.semi_supervised import SelfTrainingClassifier

    import nbayes
    from nbayes.text.vectorizer import Vectorizer

    t0 = time.perf_counter()
    Xtr_text, ytr = load("train")
    Xte_text, yte = load("test")
    names, ytr = np.unique(ytr, return_inverse=True)  # integer codes: -1 marks unlabelled rows
    yte = np.searchsorted(names, yte)
    settings = {"plain": {}, "nigam": {"stop_words": "english", "min_df": 2}}
    mats = {}
    for name in (("plain", "nigam") if args.features == "cv" else (args.features,)):
        vec = Vectorizer(**settings[name]).fit(Xtr_text)
        mats[name] = (vec.transform(Xtr_text).tocsr(), vec.transform(Xte_text).tocsr())
    print(f"nbayes {nbayes.__version__}, scikit-learn {sklearn.__version__}; 20 Newsgroups bydate: "
          f"{len(ytr)} train, {len(yte)} test, "
          + ", ".join(f"{name} features {m[0].shape[1]} terms" for name, m in mats.items())
          + f" (vocabulary of all of train); vectorised in {time.perf_counter() - t0:.1f} s")
    Xtr = Xte = None

    def choose(L, seed):
        """The feature set whose supervised NB cross-validates best on the labelled rows."""
        from nbayes.model_selection import StratifiedKFold, cross_val_score

        if len(mats) == 1:
            return next(iter(mats))
        k = min(3, int(np.bincount(ytr[L]).min()))
        if k < 2:
            return "plain"  # one document per class: no cross-validation possible
        cv = StratifiedKFold(k, shuffle=True, random_state=seed)
        scores = {name: cross_val_score(nbayes.MultinomialNB(alpha=ALPHA), m[0][L], ytr[L], cv=cv).mean()
                  for name, m in mats.items()}
        return max(scores, key=lambda name: (scores[name], name == "plain"))

    def supervised(L, U):
        return nbayes.MultinomialNB(alpha=ALPHA).fit(Xtr[L], ytr[L])

    def em(L, U):
        return nbayes.MultinomialNB(alpha=ALPHA).fit(Xtr[L], ytr[L], X_unlabeled=Xtr[U])

    def em_cv(L, U):
        return nbayes.EM(nbayes.MultinomialNB(alpha=ALPHA), unlabeled_weight="cv").fit(Xtr[L], ytr[L], X_unlabeled=Xtr[U])

    def self_training(L, U):
        y = np.full(len(ytr), -1)
        y[L] = ytr[L]
        return SelfTrainingClassifier(SkMNB(alpha=ALPHA)).fit(Xtr, y)

    def em_components(L, U):
        return nbayes.EM(nbayes.MultinomialNB(alpha=ALPHA), n_components=args.components, n_init=args.n_init,
                         random_state=0).fit(Xtr[L], ytr[L], X_unlabeled=Xtr[U])

    runs = dict(zip(METHODS, (supervised, em, em_cv, self_training)))
    if args.components is not None:
        if args.only_components:
            runs = {m: runs[m] for m in ("supervised NB", "EM")}
        runs[f"EM, {args.components} comp."] = em_components
    methods = list(runs)
    acc = {m: np.zeros((len(sizes), args.seeds)) for m in methods}
    secs = {m: np.zeros((len(sizes), args.seeds)) for m in methods}
    info = {"EM iterations": np.zeros((len(sizes), args.seeds)), "lambda": np.zeros((len(sizes), args.seeds))}
    chosen: dict[tuple[int, int], str] = {}
    for a, size in enumerate(sizes):
        for s in range(args.seeds):
            L = draw(ytr, size, s)
            U = np.setdiff1d(np.arange(len(ytr)), L)
            chosen[a, s] = choose(L, s)
            Xtr, Xte = mats[chosen[a, s]]
            for m, fn in runs.items():
                t = time.perf_counter()
                model = fn(L, U)
                secs[m][a, s] = time.perf_counter() - t
                acc[m][a, s] = float(np.mean(model.predict(Xte) == yte))
                if m == "EM":
                    info["EM iterations"][a, s] = model.n_iter_
                if m == "EM-lambda (cv)":
                    info["lambda"][a, s] = model.unlabeled_weight_
            print(f"  {size:>2}/class seed {s} ({chosen[a, s]} features): " + "  ".join(
                f"{m} {acc[m][a, s]:.3f} ({secs[m][a, s]:.1f} s)" for m in methods), flush=True)

    print(f"\naccuracy on the test set, mean (sd) over {args.seeds} seeds")
    print("labelled/class  " + "".join(f"{m:>18}" for m in methods) + "   EM-supervised  EM iters  cv lambdas  features")
    for a, size in enumerate(sizes):
        row = "".join(f"{100 * acc[m][a].mean():>11.1f} ({100 * acc[m][a].std():4.1f})" for m in methods)
        gain = 100 * (acc["EM"][a].mean() - acc["supervised NB"][a].mean())
        lams = ",".join(f"{v:g}" for v in info["lambda"][a]) if "EM-lambda (cv)" in runs else "-"
        feats = ",".join(chosen[a, s] for s in range(args.seeds))
        print(f"{size:>14}  {row}   {gain:>+13.1f}  {info['EM iterations'][a].mean():>8.1f}  {lams}  {feats}")
    print("\nseconds per fit, mean over seeds")
    print("labelled/class  " + "".join(f"{m:>18}" for m in methods))
    for a, size in enumerate(sizes):
        print(f"{size:>14}  " + "".join(f"{secs[m][a].mean():>18.2f}" for m in methods))
    total = sum(v.sum() for v in secs.values())
    print(f"total {total:.0f} s of fitting; wall {time.perf_counter() - t0:.0f} s")
    if args.no_plot:
        return

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for m, style in zip(methods, ("o-", "s-", "^--", "x:", "d-.")):
        mean, sd = 100 * acc[m].mean(axis=1), 100 * acc[m].std(axis=1)
        ax.errorbar(sizes, mean, yerr=sd, fmt=style, capsize=3, label=m)
    ax.set_xscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([str(s) for s in sizes])
    ax.set_xlabel("labelled documents per class (20 classes)")
    ax.set_ylabel("test accuracy (%)")
    ax.set_title(f"20 Newsgroups bydate, {args.features} features, alpha={ALPHA}")  # cv: chosen per set
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=120)
    print(f"plot: {args.plot}")


def api(args: argparse.Namespace) -> None:
    """Supervised against EM through TextClassifier on the raw documents, per size and seed."""
    import nbayes

    Xtr, ytr = load("train")
    Xte, yte = load("test")
    sizes = [int(s) for s in args.sizes.split(",")]
    configs = {"documented": API_SETTINGS, "plain": {"alpha": ALPHA}}
    print(f"nbayes {nbayes.__version__}: TextClassifier(...).fit(labelled, y[, X_unlabeled=rest]), lambda 'auto'")
    for size in sizes:
        gains: dict[str, list[float]] = {name: [] for name in configs}
        for s in range(args.seeds):
            L = draw(ytr, size, s)
            U = np.setdiff1d(np.arange(len(ytr)), L)
            if args.unlabeled is not None:
                U = np.random.default_rng(s + 1).permutation(U)[: args.unlabeled]
            lab, rest = [Xtr[i] for i in L], [Xtr[i] for i in U]
            for name, kw in configs.items():
                t = time.perf_counter()
                sup = nbayes.TextClassifier(**kw).fit(lab, ytr[L])
                t_sup = time.perf_counter() - t
                t = time.perf_counter()
                em = nbayes.TextClassifier(**kw).fit(lab, ytr[L], X_unlabeled=rest)
                t_em = time.perf_counter() - t
                a0, a1 = np.mean(sup.predict(Xte) == yte), np.mean(em.predict(Xte) == yte)
                gains[name].append(100 * (a1 - a0))
                print(f"  {size}/class seed {s} {name} {kw}: supervised {100 * a0:.1f}% ({t_sup:.1f} s), "
                      f"EM {100 * a1:.1f}% ({t_em:.1f} s, lambda {em.unlabeled_weight_:g}), {gains[name][-1]:+.1f}",
                      flush=True)
        print(f"{size}/class, {len(U)} unlabelled: " + ", ".join(
            f"{name} gain {np.mean(g):+.1f} (sd {np.std(g):.1f})" for name, g in gains.items()))


if __name__ == "__main__":
    main()
