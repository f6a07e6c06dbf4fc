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

from . import CategoricalNB, NaiveBayes, TextClassifier, load
from .calibration import CalibratedClassifier
from .evaluate import classification_measures, compare
from .evaluate.figures import confusion_svg, learning_curves_svg
from .evaluate.reports import (
    CalibrationCurves,
    calibration_of_model,
    cross_validated_calibration,
    reliability_figure,
)

#: what the report draws and the JSON leaves out: the reliability data of each example
Curves = dict[str, CalibrationCurves]


def _read_csv(name: str) -> tuple[list[str], list[list[str]]]:
    raw = resources.files("nbayes").joinpath("data", name).read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"))))
    return rows[0], rows[1:]


def playtennis() -> dict[str, Any]:
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


def house_votes(workdir: Path, curves: Curves | None = None) -> dict[str, Any]:
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
    # the same folds, each model's probabilities before and after temperature scaling fitted on
    # its training part (inner 5-fold out-of-fold scores): Naive Bayes' over-confidence measured
    calibration, hv_curves = cross_validated_calibration(
        NaiveBayes, lambda m, rows: X[rows], y, [np.flatnonzero(fold_of == k) for k in range(10)], "temperature")
    if curves is not None:
        curves["house_votes_84"] = hv_curves

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
        "calibration": _scores(calibration, fitted_on="each outer fold's training part (inner 5-fold "
                               "out-of-fold scores)", measured_on=f"the held-out folds (10-fold cross-validation, {n} rows)"),
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


def _scores(c: dict[str, Any], *, fitted_on: str, measured_on: str) -> dict[str, Any]:
    """The raw (before) and calibrated (after) scores of a calibration measure, and its map:
    what the map was fitted on and what it is measured on, never the same rows."""
    out = {"method": c["method"], "fitted_on": fitted_on, "measured_on": measured_on, "rows": c["rows"]}
    out.update(raw=c["before"], calibrated=c["after"])
    if "temperature" in c:
        out["temperature"] = c["temperature"]
    elif "temperature_per_fold" in c:
        out["temperature_per_fold"] = c["temperature_per_fold"]
    return out


def sms_spam(curves: Curves | None = None) -> dict[str, Any]:
    """SMS spam (UCI): train on the first 80% of the messages, evaluate on the rest, explain
    three test messages word by word; the same model calibrated (temperature scaling on 5-fold
    out-of-fold scores of the training messages), its test probabilities next to the raw ones."""
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
    calibrated = CalibratedClassifier(TextClassifier(), method="temperature", cv=5).fit(texts[:cut], y[:cut])
    calibration, sms_curves = calibration_of_model(calibrated, test, y[cut:])
    if curves is not None:
        curves["sms_spam"] = sms_curves
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
            "probability": float(model.predict_proba([texts[i]])[0][list(model.classes_).index(e.predicted)]),
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
        "calibration": _scores(calibration, fitted_on=f"5-fold out-of-fold scores of the {cut} training messages",
                               measured_on=f"the {calibration['rows']} test messages"),
        "explained": explained,
    }


def learning_curve() -> Any:
    """Ng & Jordan's experiment on the house votes (missing votes included)."""
    header, rows = _read_csv("house_votes_84.csv.gz")
    y = np.array([r[0] for r in rows])
    X = np.array([[v if v else None for v in r[1:]] for r in rows], dtype=object)
    return compare(X, y, repeats=5, random_state=0)


def run(as_json: bool = False, report: str | None = "nbayes-demo-report.html") -> None:
    """Each example computed, then printed at once (line by line, flushed: a pipe sees each
    section as it is done); with ``as_json``, everything as one JSON object at the end."""
    curves: Curves = {}
    say = (lambda *a: None) if as_json else _say
    results: dict[str, Any] = {"playtennis": playtennis()}
    say(*_playtennis_lines(results["playtennis"]))
    with tempfile.TemporaryDirectory() as tmp:
        results["house_votes_84"] = house_votes(Path(tmp), curves)
    say("", *_house_votes_lines(results["house_votes_84"]))
    results["sms_spam"] = sms_spam(curves)
    say("", *_sms_lines(results["sms_spam"]))
    curve = learning_curve()
    results["learning_curve"] = _curve_summary(curve)
    say("", *_curve_lines(results["learning_curve"]))
    if report:
        write_report(Path(report), results, curve, curves)
        results["report"] = str(report)
        say(f"report with the confusion matrix, the learning curves and the reliability diagrams: {report}")
    if as_json:
        print(json.dumps(results, indent=2, default=str), flush=True)


def _say(*lines: str) -> None:
    for line in lines:
        print(line, flush=True)


def _playtennis_lines(pt: dict[str, Any]) -> list[str]:
    return [
        "PlayTennis (Mitchell, slides 000), maximum likelihood (alpha=0)",
        f"  new day: {pt['day']}",
        *(f"  P({c}) * prod P(a|{c}) = {p:.4f}" for c, p in pt["joint"].items()),
        f"  -> prediction: {pt['prediction']}   posterior: "
        + ", ".join(f"{c}={p:.3f}" for c, p in pt["posterior"].items()),
    ]


def _house_votes_lines(hv: dict[str, Any]) -> list[str]:
    ex = hv["explained_row"]
    prior = ", ".join(f"{c}={p:.3f}" for c, p in hv["all_missing_row_gets_prior"].items())
    return [
        f"House votes 1984 (UCI): {hv['rows']} rows, {hv['features']} votes, "
        f"{hv['missing_votes']} missing votes left out of the product exactly",
        f"  NaiveBayes() 10-fold CV accuracy: {hv['cv_accuracy']:.3f} "
        f"(sd over the folds {hv['cv_accuracy_sd']:.3f}, {hv['cv_seconds']:.2f} s)",
        f"  row 2 -> {ex['prediction']} (vs {ex['against']}); log-odds terms, largest first:",
        *(f"    {name:<40} vote={ex['votes'][name]!s:<5} {term:+.3f}" for name, term in ex["top_terms"].items()),
        f"    {'(log prior difference)':<40} {'':<10} {ex['baseline']:+.3f}",
        *_calibration_lines(hv["calibration"]),
        f"  a row with every vote missing gets the prior (the training class frequencies): {prior}",
        f"  merge of two half models vs one full model: max |dP| = {hv['merge_max_abs_diff']:.1e}",
        f"  unlearn 50 rows vs never trained on them:    max |dP| = {hv['unlearn_max_abs_diff']:.1e}",
        f"  saved ({hv['file_bytes']} bytes) and loaded back: identical = {hv['load_identical']}",
    ]


def _sms_lines(sms: dict[str, Any]) -> list[str]:
    lines = [
        f"SMS spam (UCI): TextClassifier() on the first {sms['train_rows']} messages "
        f"({sms['fit_seconds']:.2f} s), tested on the last {sms['test_rows']}",
        f"  accuracy {sms['accuracy']:.4f}   macro-F1 {sms['macro_f1']:.4f}   log-loss {sms['log_loss']:.4f}",
        *_calibration_lines(sms["calibration"]),
        f"  confusion matrix (rows true, columns predicted; {', '.join(map(str, sms['labels']))}): "
        f"{sms['confusion_matrix']}",
        "  test messages explained (each word's share of the log-odds; + towards the prediction):",
    ]
    for ex in sms["explained"]:
        top = sorted(ex["tokens"], key=lambda t: -abs(t[2]))[:4]
        words = ", ".join(f"{ex['text'][a:b]} {c:+.2f}" for a, b, c in top)
        text = ex["text"] if len(ex["text"]) <= 60 else ex["text"][:59] + "\u2026"
        lines.append(f"  [{ex['label']} -> {ex['prediction']}, P = {ex['probability']:.3f}] {text!r}: {words}")
    return lines


def _curve_lines(lc: dict[str, Any]) -> list[str]:
    first, last = lc["table"][0], lc["table"][-1]
    lines = [
        f"Learning curves (Ng & Jordan) on the house votes: NaiveBayes vs LogisticRegression, "
        f"{lc['repeats']} draws per size, {lc['n_test']} test rows",
        *(f"  m = {r['size']:>3}: test error NB {100 * r['nb_error_mean']:.1f}%, LR {100 * r['lr_error_mean']:.1f}%"
          for r in (first, last)),
    ]
    if lc["crossover"] is None:
        lines.append("  logistic regression's mean error is not below Naive Bayes' at the largest size")
        return lines
    lines.append(f"  LR's mean error is below NB's from m = {lc['crossover']} on; the gap exceeds two standard "
                 "errors of the test set (paired by row) "
                 + (f"from m = {lc['gap_resolved_from']} on" if lc["gap_resolved_from"] else "at no size"))
    return lines


def _curve_summary(curve: Any) -> dict[str, Any]:
    """The table and crossover of a comparison, and the smallest size from which LR's mean error
    is below NB's by more than two standard errors of the paired test-set difference at every
    larger size (a crossover the test set can resolve), or None."""
    d = np.nanmean(curve.lr_error - curve.nb_error, axis=1)
    se = np.nanmean(curve.error_diff_se, axis=1)
    clear = d < -2 * se
    resolved = None
    if clear[-1]:
        not_clear = np.flatnonzero(~clear)
        resolved = int(curve.sizes[not_clear[-1] + 1 if len(not_clear) else 0])
    return {"crossover": curve.crossover, "gap_resolved_from": resolved, "repeats": int(curve.nb_error.shape[1]),
            "n_test": curve.info.get("n_test"), "table": json.loads(curve.to_json()).get("table")}


def _calibration_lines(c: dict[str, Any]) -> list[str]:
    r, k = c["raw"], c["calibrated"]
    return [
        f"  probabilities raw -> calibrated ({c['method']} scaling fitted on {c['fitted_on']};",
        f"    measured on {c['measured_on']}): log-loss {r['log_loss']:.4f} -> {k['log_loss']:.4f}, "
        f"Brier {r['brier']:.4f} -> {k['brier']:.4f}, ECE {r['ece']:.4f} -> {k['ece']:.4f}",
    ]


def _calibration_table(c: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{name}</th><td>{s['log_loss']:.4f}</td><td>{s['brier']:.4f}</td><td>{s['ece']:.4f}</td>"
        f"<td>{100 * s['accuracy']:.2f}%</td></tr>"
        for name, s in (("raw", c["raw"]), ("calibrated", c["calibrated"]))
    )
    return ("<table><tr><th>probabilities</th><th>log-loss</th><th>Brier</th><th>ECE (15 bins)</th>"
            f"<th>accuracy</th></tr>{rows}</table>")


def write_report(path: Path, results: dict[str, Any], curve: Any, curves: Curves | None = None) -> None:
    """One self-contained HTML page (no external requests, no matplotlib): the SMS confusion
    matrix, the explained messages with each word coloured by its contribution, the learning
    curves, and the raw probabilities next to calibrated ones (tables and reliability
    diagrams). The figures are inline SVG written by nbayes."""
    import html

    curves = curves or {}
    sms, hv = results["sms_spam"], results["house_votes_84"]
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
    rows = []
    for r in curve.table:
        rows.append(
            f"<tr><td>{r.size}</td><td>{100 * r.nb_error_mean:.1f} &plusmn; {100 * r.nb_error_std:.1f}</td>"
            f"<td>{100 * r.lr_error_mean:.1f} &plusmn; {100 * r.lr_error_std:.1f}</td>"
            f"<td>{r.nb_log_loss_mean:.3f}</td><td>{r.lr_log_loss_mean:.3f}</td><td>{r.n_repeats}</td></tr>"
        )
    table = ("<table><tr><th>training rows m</th><th>NB error %</th><th>LR error %</th><th>NB log-loss</th>"
             f"<th>LR log-loss</th><th>draws</th></tr>{''.join(rows)}</table>")
    crossover = "none" if curve.crossover is None else f"m = {curve.crossover}"
    first, last_row = curve.table[0], curve.table[-1]
    hc, sc = hv["calibration"], sms["calibration"]
    figures = {k: reliability_figure(c, f"Reliability: {name}") for k, c, name in (
        (k, curves.get(k), name) for k, name in (("house_votes_84", "NaiveBayes, house votes"),
                                                  ("sms_spam", "TextClassifier, SMS spam"))) if c is not None}
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nbayes demo report</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:right}}svg{{max-width:100%;height:auto;display:block;margin:1em 0}}</style></head><body>
<h1>nbayes demo report</h1>
<h2>SMS spam: TextClassifier()</h2>
<p>Trained on {sms['train_rows']:,} messages, tested on {sms['test_rows']:,}: accuracy {sms['accuracy']:.4f},
macro-F1 {sms['macro_f1']:.4f}, log-loss {sms['log_loss']:.4f}.</p>
{confusion_svg(sms['labels'], sms['confusion_matrix'], title='SMS spam: confusion matrix (test messages)')}
<table><tr><th>true &#92; predicted</th>{''.join(f'<th>{c}</th>' for c in labels)}</tr>{cm}</table>
<h2>Why: each word's contribution to the log-odds</h2>{''.join(msgs)}
<h2>Naive Bayes vs logistic regression as the training set grows (house votes 1984)</h2>
<p>Crossover: {crossover}. Naive Bayes' test error goes from {100 * first.nb_error_mean:.1f}% at m = {first.size}
to {100 * last_row.nb_error_mean:.1f}% at m = {last_row.size}, while its log-loss goes from {first.nb_log_loss_mean:.3f}
to {last_row.nb_log_loss_mean:.3f}: more rows make its probabilities more extreme (the independence assumption counts
correlated votes as separate evidence), the over-confidence that calibration corrects (below).</p>
{learning_curves_svg(curve.table, curve.crossover, n_test=curve.info.get('n_test'))}
{table}
<h2>Raw and calibrated probabilities</h2>
<p>House votes, NaiveBayes(): temperature scaling fitted on {html.escape(hc['fitted_on'])}, measured on
{html.escape(hc['measured_on'])}.</p>
{_calibration_table(hc)}
{figures.get('house_votes_84', '')}
<p>SMS spam, TextClassifier(): temperature scaling fitted on {html.escape(sc['fitted_on'])}, measured on
{html.escape(sc['measured_on'])}.</p>
{_calibration_table(sc)}
{figures.get('sms_spam', '')}
</body></html>
"""
    tmp_path = path.with_name(f".{path.name}.tmp")
    tmp_path.write_text(page, encoding="utf-8")
    tmp_path.replace(path)
