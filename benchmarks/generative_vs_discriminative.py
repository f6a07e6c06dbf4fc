"""Ng & Jordan (2002) on the shared UCI tables: learning curves of nbayes.NaiveBayes() and
nbayes.LogisticRegression(), measured with nbayes.compare.

Chapter 002 (section 4): Naive Bayes approaches its (higher) asymptotic error within about
log n examples, logistic regression its (lower) one within about n; so Naive Bayes tends to win
on small training sets and logistic regression on large ones. This script measures it on six
tables of ../shared/data (or $NBAYES_DATA), read with benchmarks/accuracy_tabular.py's reader
(pandas; only empty fields are missing). adult and optdigits: the official training and test
parts are pooled, because compare holds out its own test set.

Protocol (nbayes.compare): 30 % of the rows held out once (stratified), then for about 12
training sizes m from 2 rows per class to the whole remaining pool (a geometric grid) and
--repeats draws per size (stratified), both models are fitted on the same draw and scored on the
held-out rows. Naive Bayes gets the table as it is (mixed columns, missing values);
logistic regression (C=1) gets every column one-hot encoded (strings), mean-imputed and
standardised with the statistics of the training draw (lr_preprocess="always").

The verdict per dataset is computed from the measured table (see VERDICT below).

Run:  python benchmarks/generative_vs_discriminative.py [--repeats 10] [--sets pima_diabetes,adult]
      [--out docs] [--jobs 2] [--lr nbayes|sklearn]
Writes docs/generative-vs-discriminative.md and docs/img/generative-vs-discriminative-<set>.png.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import sys
import time
import warnings
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("NBAYES_DATA") or ROOT.parent / "shared" / "data")
SETS = ["pima_diabetes", "adult", "ionosphere", "optdigits", "house_votes_84", "breast_cancer"]
#: a model "has reached its asymptote" at m when from m on its mean error stays within TOL (plus
#: twice the standard error of that mean over the draws) of its error on the whole pool
TOL = 0.01
DOC = "generative-vs-discriminative.md"
IMG = "img"

VERDICT = f"""How each verdict is read from the table: the error on the whole training pool (the
largest m) stands for the asymptotic error. A model *has reached its asymptote* at the smallest
m from which its mean error stays within {100 * TOL:.0f} percentage point of that final error (plus
twice the standard error of the mean over the draws at each m, so that draw-to-draw noise alone
does not decide). Ng & Jordan's finding has two parts, checked separately: (1) Naive Bayes
reaches its asymptote at a smaller m than logistic regression; (2) logistic regression's final
error is lower than Naive Bayes'. Both hold: *agrees*; one: *partly agrees*; neither:
*disagrees*. The ± beside the final errors is twice the standard error of their difference on
the held-out rows, paired by row (both models are scored on the same rows); a smaller
difference is not a clear one. The *crossover* is the smallest m from which logistic
regression's mean error stays below Naive Bayes'."""


def _reader():
    """benchmarks/accuracy_tabular.py's ``read`` (the same CSV reading as the accuracy table)."""
    spec = importlib.util.spec_from_file_location("accuracy_tabular", Path(__file__).with_name("accuracy_tabular.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.DATA = DATA
    return module.read


def load(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    read = _reader()
    X, y = read(name)
    if (DATA / name / "test.csv.gz").exists():
        Xt, yt = read(name, "test")
        X, y = pd.concat([X, Xt], ignore_index=True), np.concatenate([y, yt])
    return X, y


def make_lr(kind: str):
    if kind == "sklearn":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    import nbayes

    return nbayes.LogisticRegression()


def reached(sizes: list[int], means: list[float], sems: list[float]) -> int:
    """The smallest size from which the mean error stays within TOL (+ 2 standard errors of
    the mean over the draws) of the final one."""
    final = means[-1]
    m = sizes[-1]
    for s, e, se in zip(reversed(sizes), reversed(means), reversed(sems)):
        if e > final + TOL + 2 * se:
            break
        m = s
    return m


def verdict(result) -> dict:
    t = [r for r in result.table if r.n_repeats > 0]
    sizes = [r.size for r in t]
    nb = [r.nb_error_mean for r in t]
    lr = [r.lr_error_mean for r in t]
    m_nb = reached(sizes, nb, [r.nb_error_std / math.sqrt(r.n_repeats) for r in t])
    m_lr = reached(sizes, lr, [r.lr_error_std / math.sqrt(r.n_repeats) for r in t])
    last = result.error_diff_se[list(result.sizes).index(sizes[-1])]
    noise = 2 * float(np.mean(last[~np.isnan(last)]))
    faster, lower = m_nb < m_lr, lr[-1] < nb[-1]
    word = {2: "Agrees", 1: "Partly agrees", 0: "Disagrees"}[faster + lower]
    diff = 100 * (nb[-1] - lr[-1])
    clear = abs(diff) > 100 * noise
    when = {1: f"only from m = {m_lr}", 0: "from the same m", -1: f"already from m = {m_lr}"}
    pace = (
        f"Naive Bayes is at its asymptote (final error {100 * nb[-1]:.1f} %) from m = {m_nb}, "
        f"logistic regression (final {100 * lr[-1]:.1f} %) {when[(m_lr > m_nb) - (m_lr < m_nb)]}"
    )
    if lower:
        final = f"logistic regression's error on the whole pool is lower by {diff:.1f} points"
    elif diff == 0:
        final = "both end with the same error on the whole pool"
    else:
        final = f"logistic regression's error on the whole pool is higher by {-diff:.1f} points"
    final += f" (±{100 * noise:.1f}: {'a clear' if clear else 'not a clear'} difference)"
    c = result.crossover
    if c is None:
        cross = "logistic regression's mean error does not end below Naive Bayes'"
    elif c == sizes[0]:
        cross = f"logistic regression is ahead at every size from m = {c}"
    else:
        cross = f"the curves cross at m = {c} (Naive Bayes ahead below it)"
    sentence = f"**{word} with Ng & Jordan**: {pace}, {final}; {cross}."
    return {
        "word": word if clear else f"{word} (final gap within noise)", "sentence": sentence, "m_nb": m_nb, "m_lr": m_lr, "nb_final": nb[-1],
        "lr_final": lr[-1], "nb_first": nb[0], "lr_first": lr[0], "first": sizes[0], "noise": noise,
    }


def run(name: str, repeats: int, lr_kind: str, out: Path) -> dict:
    import nbayes

    X, y = load(name)
    n_num = sum(pd.api.types.is_numeric_dtype(X[c]) for c in X.columns)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = nbayes.compare(X, y, lr=make_lr(lr_kind), repeats=repeats, random_state=0, lr_preprocess="always")
    seconds = time.perf_counter() - t0
    counts: dict[str, int] = {}
    for w in caught:
        key = w.category.__name__
        counts[key] = counts.get(key, 0) + 1
    png = out / IMG / f"generative-vs-discriminative-{name}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    result.plot(png, title=f"{name}: Naive Bayes vs logistic regression ({result.info['n_test']} test rows)")
    v = verdict(result)
    missing = int(X.isna().sum().sum())
    print(f"{name}: {seconds:.1f} s, {v['word']}, crossover {result.crossover}, warnings {counts}", flush=True)
    return {
        "name": name, "result": result, "verdict": v, "seconds": seconds, "warnings": counts,
        "rows": len(y), "features": X.shape[1], "numeric": n_num, "missing": missing,
        "classes": len(result.info["classes"]), "png": png,
    }


def write_doc(runs: list[dict], out: Path, repeats: int, lr_kind: str, total: float) -> Path:
    import nbayes

    lr_name = repr(make_lr(lr_kind))
    if lr_kind == "nbayes":
        lr_name = f"nbayes.{lr_name}"
    else:
        lr_name = f"scikit-learn {lr_name} (stand-in; not nbayes.LogisticRegression)"
    lines = [
        "# Generative vs discriminative: Naive Bayes and logistic regression learning curves",
        "",
        "Ng & Jordan (2002), summed up in chapter 002 (section 4) of the seed documents: Naive Bayes",
        "(generative) approaches its asymptotic error within about log n training examples, logistic",
        "regression (discriminative) within about n (n features); when the Naive Bayes assumptions do",
        "not hold, logistic regression's asymptotic error is the lower one. So Naive Bayes tends to win",
        "on small training sets and logistic regression on large ones. `nbayes.compare` measures both",
        "learning curves; this page is its output on six UCI tables of `../shared/data`.",
        "",
        "Written by `python benchmarks/generative_vs_discriminative.py"
        + (f" --repeats {repeats}" if repeats != 10 else "")
        + (" --lr sklearn" if lr_kind == "sklearn" else "")
        + f"` on {date.today().isoformat()} (nbayes {nbayes.__version__}, numpy {np.__version__},"
        f" Python {platform.python_version()}, {os.cpu_count()} cores; {total:.0f} s in all). Rerun it to check.",
        "",
        "## Protocol",
        "",
        "* Models: `nbayes.NaiveBayes()` (default settings: numbers Gaussian, strings categorical,",
        f"  missing values left out) against `{lr_name}`.",
        "* 30 % of the rows are held out once as the test set (stratified by class; random_state=0).",
        "  adult and optdigits: their official training and test parts are pooled first.",
        "* Training sizes m: a geometric grid of about 12 sizes from 2 rows per class to the whole",
        f"  remaining pool; {repeats} stratified random draws per size (every class at least once); both",
        "  models are fitted on the same draw. Errors are mean ± standard deviation over the draws (at the",
        "  largest m every draw is the whole pool, so the deviation is 0).",
        "* Logistic regression's input: strings one-hot encoded, numbers as they are, then every column",
        "  mean-imputed and standardised with the training draw's statistics",
        "  (`lr_preprocess=\"always\"`); categories unseen in the draw are all-zero indicators.",
        "* Log-loss: mean -ln P(true class), probabilities clipped at 1e-15.",
        "",
        VERDICT,
        "",
        "## Summary",
        "",
        "| dataset | rows | features | classes | smallest m: NB / LR error % | largest m: NB / LR error % (± 2 SE of the gap) | NB / LR at asymptote from m = | crossover | verdict |",
        "|---|---:|---:|---:|---|---|---|---:|---|",
    ]
    for r in runs:
        v = r["verdict"]
        res = r["result"]
        lines.append(
            f"| [{r['name']}](#{r['name']}) | {r['rows']} | {r['features']} | {r['classes']} | "
            f"m={v['first']}: {100 * v['nb_first']:.1f} / {100 * v['lr_first']:.1f} | "
            f"m={res.sizes[-1]}: {100 * v['nb_final']:.1f} / {100 * v['lr_final']:.1f} (±{100 * v['noise']:.1f}) | "
            f"{v['m_nb']} / {v['m_lr']} | {res.crossover if res.crossover is not None else '–'} | {v['word']} |"
        )
    for r in runs:
        res, v = r["result"], r["verdict"]
        info = res.info
        kinds = f"{r['numeric']} numeric, {r['features'] - r['numeric']} categorical"
        warn = ""
        if r["warnings"]:
            warn = " Warnings during the run: " + ", ".join(f"{k} × {n}" for k, n in sorted(r["warnings"].items())) + "."
        lines += [
            "",
            f"## {r['name']}",
            "",
            f"{r['rows']} rows, {r['features']} features ({kinds}; {r['missing']} missing cells), {r['classes']} classes;"
            f" {info['n_test']} test rows, training pool {info['n_pool']} rows; {info['repeats']} draws per size;"
            f" {r['seconds']:.1f} s.{warn}",
            "",
            f"![{r['name']}: test error against training size]({IMG}/{r['png'].name})",
            "",
            res.to_markdown().rstrip(),
            "",
            v["sentence"],
        ]
    path = out / DOC
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=10, help="draws per training size (default 10)")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated dataset names")
    ap.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the page and img/ (default docs/)")
    ap.add_argument("--jobs", type=int, default=2, help="datasets run in parallel processes (default 2)")
    ap.add_argument(
        "--lr", choices=("nbayes", "sklearn"), default="nbayes",
        help="logistic regression: nbayes.LogisticRegression (default) or scikit-learn's as a stand-in",
    )
    args = ap.parse_args()
    if args.jobs > 1:
        # one process per core: the kernels' (and BLAS') own threads would only fight over the
        # cores (measured: optdigits took 49 s with 2 kernel threads per process, 6 s with 1)
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not DATA.is_dir():
        sys.exit(f"shared datasets not found at {DATA}: set NBAYES_DATA")
    if args.lr == "nbayes":
        try:
            make_lr("nbayes")
        except (ImportError, AttributeError) as exc:
            sys.exit(f"nbayes.LogisticRegression is not available ({exc}); use --lr sklearn to try the script")
    names = [s for s in args.sets.split(",") if s]
    t0 = time.perf_counter()
    if args.jobs > 1 and len(names) > 1:
        from concurrent.futures import ProcessPoolExecutor

        # the largest set first, so that it does not start last
        order = sorted(names, key=lambda n: n != "adult")
        with ProcessPoolExecutor(min(args.jobs, len(names))) as pool:
            futures = {n: pool.submit(run, n, args.repeats, args.lr, args.out) for n in order}
            runs = [futures[n].result() for n in names]
    else:
        runs = [run(name, args.repeats, args.lr, args.out) for name in names]
    path = write_doc(runs, args.out, args.repeats, args.lr, time.perf_counter() - t0)
    print(f"wrote {path} and {len(runs)} figure(s) in {args.out / IMG} ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
