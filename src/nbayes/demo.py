"""``nbayes demo``: the worked examples on the data shipped in ``nbayes/data``."""

from __future__ import annotations

import csv
import gzip
import io
import json
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np


def _read_csv(name: str) -> tuple[list[str], list[list[str]]]:
    raw = resources.files("nbayes").joinpath("data", name).read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"))))
    return rows[0], rows[1:]


def playtennis() -> dict[str, Any]:
    from . import CategoricalNB

    header, rows = _read_csv("playtennis.csv")
    X = [r[1:5] for r in rows]
    y = [r[5] for r in rows]
    model = CategoricalNB(alpha=0).fit(X, y)  # MLE, eq. 6 of chapter 002
    day = ["Sunny", "Cool", "High", "Strong"]
    joint = np.exp(model.predict_joint_log_proba([day]))[0]
    return {
        "day": dict(zip(header[1:5], day)),
        "joint": {str(c): float(p) for c, p in zip(model.classes_, joint)},
        "prediction": str(model.predict([day])[0]),
        "posterior": {str(c): float(p) for c, p in zip(model.classes_, model.predict_proba([day])[0])},
    }


def house_votes(workdir: Path) -> dict[str, Any]:
    from . import NaiveBayes, load

    header, rows = _read_csv("house_votes_84.csv.gz")
    y = np.array([r[0] for r in rows])
    X = np.array([[v if v else None for v in r[1:]] for r in rows], dtype=object)
    names = header[1:]
    n = len(y)
    missing = sum(v is None for v in X.ravel())
    folds = np.arange(n) % 10
    order = np.random.default_rng(0).permutation(n)
    fold_of = np.empty(n, dtype=int)
    fold_of[order] = folds
    hits = []
    t0 = time.perf_counter()
    for k in range(10):
        test = fold_of == k
        model = NaiveBayes().fit(X[~test], y[~test])
        hits.append(float(np.mean(model.predict(X[test]) == y[test])))
    cv_seconds = time.perf_counter() - t0

    full = NaiveBayes().fit(X, y)
    row = X[2:3]
    explanation = full.explain(row)
    pred, runner, terms, baseline = explanation.log_odds(0)
    top = np.argsort(-np.abs(terms))[:5]
    shard_a = NaiveBayes().fit(X[: n // 2], y[: n // 2])
    shard_b = NaiveBayes().fit(X[n // 2 :], y[n // 2 :])
    merged = shard_a.merge(shard_b)
    merge_gap = float(np.max(np.abs(merged.predict_proba(X) - full.predict_proba(X))))
    forgot = NaiveBayes().fit(X, y).unlearn(X[:50], y[:50])
    never = NaiveBayes().fit(X[50:], y[50:])
    unlearn_gap = float(np.max(np.abs(forgot.predict_proba(X) - never.predict_proba(X))))
    path = workdir / "house_votes.nbm"
    full.save(path)
    loaded = load(path)
    same = bool(np.array_equal(loaded.predict_proba(X), full.predict_proba(X)))
    all_missing = np.full((1, X.shape[1]), None, dtype=object)
    return {
        "rows": n,
        "features": X.shape[1],
        "missing_votes": int(missing),
        "cv_accuracy": float(np.mean(hits)),
        "cv_accuracy_sd": float(np.std(hits)),
        "cv_seconds": cv_seconds,
        "explained_row": {
            "prediction": str(pred),
            "against": str(runner),
            "baseline": baseline,
            "top_terms": {names[j]: float(terms[j]) for j in top},
            "votes": {names[j]: row[0, j] for j in top},
        },
        "all_missing_row_gets_prior": {
            str(c): float(p) for c, p in zip(full.classes_, full.predict_proba(all_missing)[0])
        },
        "merge_max_abs_diff": merge_gap,
        "unlearn_max_abs_diff": unlearn_gap,
        "file_bytes": path.stat().st_size,
        "load_identical": same,
    }


def sms_spam() -> dict[str, Any]:
    """SMS spam (UCI): train on the first 80% of the messages, evaluate on the rest, explain
    three test messages word by word."""
    from . import TextClassifier
    from .evaluate import classification_measures

    raw = resources.files("nbayes").joinpath("data", "sms_spam.jsonl.gz").read_bytes()
    rows = [json.loads(line) for line in gzip.decompress(raw).decode("utf-8").splitlines()]
    texts = [r["text"] for r in rows]
    y = np.array([r["label"] for r in rows])
    cut = int(0.8 * len(rows))
    t0 = time.perf_counter()
    model = TextClassifier().fit(texts[:cut], y[:cut])
    fit_seconds = time.perf_counter() - t0
    test = texts[cut:]
    measures = classification_measures(y[cut:], model.predict(test), model.predict_proba(test), model.classes_)
    spam_rows = [i for i in range(cut, len(rows)) if y[i] == "spam"][:2]
    ham_rows = [i for i in range(cut, len(rows)) if y[i] == "ham"][:1]
    explained = []
    for i in spam_rows + ham_rows:
        e = model.explain(texts[i])
        explained.append({
            "text": texts[i],
            "label": str(y[i]),
            "prediction": str(e.predicted),
            "against": str(e.runner_up),
            "baseline": float(e.baseline),
            "tokens": [[start, end, float(c)] for (start, end), c in zip(e.spans, e.contributions)],
        })
    return {
        "train_rows": cut,
        "test_rows": len(rows) - cut,
        "fit_seconds": fit_seconds,
        "accuracy": measures["accuracy"],
        "macro_f1": measures["macro_f1"],
        "log_loss": measures["log_loss"],
        "labels": measures["labels"],
        "confusion_matrix": measures["confusion_matrix"],
        "explained": explained,
    }


def learning_curve() -> Any:
    """Ng & Jordan's experiment on the house votes (missing votes included)."""
    from .evaluate import compare

    header, rows = _read_csv("house_votes_84.csv.gz")
    y = np.array([r[0] for r in rows])
    X = np.array([[v if v else None for v in r[1:]] for r in rows], dtype=object)
    return compare(X, y, repeats=5, random_state=0)


def run(as_json: bool = False, report: str | None = "nbayes-demo-report.html") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results: dict[str, Any] = {"playtennis": playtennis(), "house_votes_84": house_votes(Path(tmp)), "sms_spam": sms_spam()}
    curve = learning_curve()
    results["learning_curve"] = {"crossover": curve.crossover, "table": json.loads(curve.to_json()).get("table")}
    if report:
        write_report(Path(report), results, curve)
        results["report"] = str(report)
    if as_json:
        print(json.dumps(results, indent=2, default=str))
        return
    pt, hv = results["playtennis"], results["house_votes_84"]
    print("PlayTennis (Mitchell, slides 000), maximum likelihood (alpha=0)")
    print(f"  new day: {pt['day']}")
    for c, p in pt["joint"].items():
        print(f"  P({c}) * prod P(a|{c}) = {p:.4f}")
    print(f"  -> prediction: {pt['prediction']}   posterior: "
          + ", ".join(f"{c}={p:.3f}" for c, p in pt["posterior"].items()))
    print()
    print(f"House votes 1984 (UCI): {hv['rows']} rows, {hv['features']} votes, "
          f"{hv['missing_votes']} missing votes left out of the product exactly")
    print(f"  NaiveBayes() 10-fold CV accuracy: {hv['cv_accuracy']:.3f} "
          f"(sd {hv['cv_accuracy_sd']:.3f}, {hv['cv_seconds']:.2f} s)")
    ex = hv["explained_row"]
    print(f"  row 2 -> {ex['prediction']} (vs {ex['against']}); log-odds terms, largest first:")
    for name, term in ex["top_terms"].items():
        print(f"    {name:<40} vote={ex['votes'][name]!s:<5} {term:+.3f}")
    print(f"    {'(log prior difference)':<40} {'':<10} {ex['baseline']:+.3f}")
    print(f"  a row with every vote missing gets the prior: {hv['all_missing_row_gets_prior']}")
    print(f"  merge of two half models vs one full model: max |dP| = {hv['merge_max_abs_diff']:.1e}")
    print(f"  unlearn 50 rows vs never trained on them:    max |dP| = {hv['unlearn_max_abs_diff']:.1e}")
    print(f"  saved ({hv['file_bytes']} bytes) and loaded back: identical = {hv['load_identical']}")
    sms = results["sms_spam"]
    print()
    print(f"SMS spam (UCI): TextClassifier() on the first {sms['train_rows']} messages "
          f"({sms['fit_seconds']:.2f} s), tested on the last {sms['test_rows']}")
    print(f"  accuracy {sms['accuracy']:.4f}   macro-F1 {sms['macro_f1']:.4f}   log-loss {sms['log_loss']:.4f}")
    print(f"  confusion matrix (rows true, columns predicted; {', '.join(map(str, sms['labels']))}): "
          f"{sms['confusion_matrix']}")
    for ex in sms["explained"]:
        top = sorted(ex["tokens"], key=lambda t: -abs(t[2]))[:4]
        words = ", ".join(f"{ex['text'][a:b]} {c:+.2f}" for a, b, c in top)
        print(f"  [{ex['label']} -> {ex['prediction']}] {ex['text'][:60]!r}: {words}")
    lc = results["learning_curve"]
    print()
    print(f"Learning curves (Ng & Jordan) on the house votes: NaiveBayes vs LogisticRegression, "
          f"crossover at {lc['crossover']} training rows")
    if "report" in results:
        print(f"report with the confusion matrix and the learning curve: {results['report']}")


def write_report(path: Path, results: dict[str, Any], curve: Any) -> None:
    """One self-contained HTML page (no external requests): the SMS confusion matrix, the
    explained messages with each word coloured by its contribution, and the learning curve."""
    import base64
    import html

    sms = results["sms_spam"]
    labels = [html.escape(str(c)) for c in sms["labels"]]
    cm = "".join(
        f"<tr><th>{labels[i]}</th>" + "".join(f"<td>{v:,}</td>" for v in row) + "</tr>"
        for i, row in enumerate(sms["confusion_matrix"])
    )
    msgs = []
    for ex in sms["explained"]:
        text, out, last = ex["text"], [], 0
        for s, e, c in ex["tokens"]:
            out.append(html.escape(text[last:s]))
            alpha = min(abs(c) / 4.0, 1.0)
            colour = f"rgba(0,150,0,{alpha:.2f})" if c > 0 else f"rgba(200,0,0,{alpha:.2f})"
            out.append(f'<span style="background:{colour}" title="{c:+.3f}">{html.escape(text[s:e])}</span>')
            last = e
        out.append(html.escape(text[last:]))
        msgs.append(
            f"<p><b>{html.escape(ex['label'])} &rarr; {html.escape(ex['prediction'])}</b> "
            f"(green: towards {html.escape(ex['prediction'])}, red: towards {html.escape(ex['against'])})<br>{''.join(out)}</p>"
        )
    figure = ""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            png = Path(tmp) / "curve.png"
            curve.plot(png)
            figure = f'<img alt="learning curve" src="data:image/png;base64,{base64.b64encode(png.read_bytes()).decode()}">'
    except ImportError:
        figure = "<p>(install matplotlib for the figure: pip install 'nbayes[plot]')</p>"
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nbayes demo report</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:right}}</style></head><body>
<h1>nbayes demo report</h1>
<h2>SMS spam: TextClassifier()</h2>
<p>Trained on {sms['train_rows']:,} messages, tested on {sms['test_rows']:,}: accuracy {sms['accuracy']:.4f},
macro-F1 {sms['macro_f1']:.4f}, log-loss {sms['log_loss']:.4f}.</p>
<table><tr><th>true &#92; predicted</th>{''.join(f'<th>{c}</th>' for c in labels)}</tr>{cm}</table>
<h2>Why: each word's contribution to the log-odds</h2>{''.join(msgs)}
<h2>Naive Bayes vs logistic regression as the training set grows (house votes 1984)</h2>
{figure}
{curve.to_markdown().replace(chr(10), '<br>')}
</body></html>
"""
    tmp_path = path.with_name(f".{path.name}.tmp")
    tmp_path.write_text(page, encoding="utf-8")
    tmp_path.replace(path)
