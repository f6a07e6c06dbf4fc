"""``nbayes evaluate --calibrate`` and ``--report``: calibration measures before and after, and
the HTML report with the reliability diagram."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .metrics import _key

#: bins of the expected calibration error and of the reliability diagram
N_BINS = 15


def scores(y: np.ndarray, P: np.ndarray, classes: np.ndarray) -> dict[str, float]:
    """Log-loss, Brier score, top-label ECE and accuracy of probabilities P (columns: classes)."""
    from ..metrics import brier_score, expected_calibration_error, log_loss

    acc = float(np.mean(classes[np.argmax(P, axis=1)] == y)) if len(y) else 0.0
    return {
        "log_loss": log_loss(y, P, classes=classes),
        "brier": brier_score(y, P, classes=classes),
        "ece": expected_calibration_error(y, P, classes=classes, n_bins=N_BINS),
        "accuracy": acc,
    }


def _known(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    from .._validation import encode_labels

    _, unknown = encode_labels(y, classes)
    return ~unknown


def of_model(model: Any, Xm: Any, y: np.ndarray) -> tuple[dict[str, Any], tuple]:
    """A calibrated model on labelled rows: its base model's probabilities (before) and its own
    (after), one pass of the base model. Rows whose label the model never saw are left out."""
    from ..io.info import calibration_info

    L = np.asarray(model.base_estimator_.predict_log_proba(Xm), dtype=np.float64)
    if model.calibrator_ is None:  # an ensemble: its fold models and maps, averaged
        before, after = np.exp(L), model.predict_proba(Xm)
    else:
        before, after = np.exp(L), np.exp(model.calibrator_.transform(L))
    classes = np.asarray(model.classes_)
    keep = _known(y, classes)
    y, before, after = y[keep], before[keep], after[keep]
    out = {
        **calibration_info(model),
        "measured_on": "the evaluation data",
        "rows": int(keep.sum()),
        "before": scores(y, before, classes),
        "after": scores(y, after, classes),
    }
    return out, (y, before, after, classes)


def cross_validated(
    make: Callable[[], Any], to_input: Callable[[Any, np.ndarray], Any], y: np.ndarray, folds: list[np.ndarray], method: str
) -> tuple[dict[str, Any], tuple]:
    """Per outer fold: a CalibratedClassifier (inner 5-fold calibration, fewer folds when a class
    is rarer) fitted on the other folds, measured on this one before (its base model) and after
    calibration. Returns the measures over all rows and the curves' data."""
    from .._validation import sorted_unique
    from ..calibration import CalibratedClassifier
    from ..errors import DataError

    classes = sorted_unique(y)
    pos = {_key(c): j for j, c in enumerate(classes.tolist())}
    before = np.zeros((len(y), len(classes)))
    after = np.zeros_like(before)
    temps = []
    for test in folds:
        train = np.setdiff1d(np.arange(len(y)), test)
        counts = np.unique(np.asarray([_key(v) for v in y[train]], dtype=object), return_counts=True)[1]
        inner = int(min(5, counts.min()))
        if inner < 2:
            raise DataError(
                "--calibrate: a class has fewer than 2 rows in an outer fold's training part; "
                "calibration needs 2 or more (use fewer --cv folds)"
            )
        base = make()
        cal = CalibratedClassifier(base, method=method, cv=inner).fit(to_input(base, train), y[train])
        Xt = to_input(cal.base_estimator_, test)
        L = np.asarray(cal.base_estimator_.predict_log_proba(Xt), dtype=np.float64)
        cols = [pos[_key(c)] for c in cal.classes_.tolist()]
        before[np.ix_(test, cols)] = np.exp(L)
        after[np.ix_(test, cols)] = np.exp(cal.calibrator_.transform(L))
        if method == "temperature":
            temps.append(float(cal.calibrator_.temperature_))
    out: dict[str, Any] = {
        "method": method,
        "measured_on": f"{len(folds)}-fold cross-validation (each fold's map fitted on its training part)",
        "rows": int(len(y)),
        "before": scores(y, before, classes),
        "after": scores(y, after, classes),
    }
    if temps:
        out["temperature_per_fold"] = temps
    return out, (y, before, after, classes)



# ---------------------------------------------------------------------------- text and HTML
def print_calibration(con: Any, c: dict[str, Any]) -> None:
    """The before / after table on the console."""
    from rich.table import Table

    head = f"calibration ({c['method']}"
    if "temperature" in c:
        head += f", T = {c['temperature']:.4g}, eps = {c['eps']:.3g}"
    con.print(head + f"), measured on {c['measured_on']}:")
    t = Table(show_edge=False)
    for col in ("", "log-loss", "Brier", f"ECE ({N_BINS} bins)", "accuracy"):
        t.add_column(col, justify="left" if not col else "right")
    for name in ("before", "after"):
        s = c[name]
        t.add_row(name, f"{s['log_loss']:.4f}", f"{s['brier']:.4f}", f"{s['ece']:.4f}", f"{100 * s['accuracy']:.2f}%")
    con.print(t)


def write_report(path: str | Path, result: dict[str, Any], curves: tuple | None, title: str) -> Path:
    """One self-contained HTML page (no external request): the measures, the confusion matrix,
    and with calibration the before / after table and the reliability diagram (an inlined
    PNG; a note instead when matplotlib is missing). Written to a temporary name, then renamed."""
    path = Path(path)
    labels = [html.escape(str(c)) for c in result["labels"]]
    cm = "".join(
        f"<tr><th>{labels[i]}</th>" + "".join(f"<td>{v:,}</td>" for v in row) + "</tr>"
        for i, row in enumerate(result["confusion_matrix"])
    )
    per_class = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{m['precision']:.3f}</td><td>{m['recall']:.3f}</td>"
        f"<td>{m['f1']:.3f}</td><td>{m['support']:,}</td></tr>"
        for k, m in result["per_class"].items()
    )
    head = f"accuracy {100 * result['accuracy']:.2f}%, macro-F1 {result['macro_f1']:.4f}"
    if "log_loss" in result:
        head += f", log-loss {result['log_loss']:.4f}"
    calib, figure = "", ""
    c = result.get("calibration")
    if c is not None:
        rows = "".join(
            f"<tr><th>{name}</th><td>{c[name]['log_loss']:.4f}</td><td>{c[name]['brier']:.4f}</td>"
            f"<td>{c[name]['ece']:.4f}</td><td>{100 * c[name]['accuracy']:.2f}%</td></tr>"
            for name in ("before", "after")
        )
        params = ", ".join(f"{k} = {v}" for k, v in c.items() if k not in ("before", "after", "measured_on", "rows"))
        calib = (
            f"<h2>Calibration</h2><p>{html.escape(params)}; measured on {html.escape(c['measured_on'])} "
            f"({c['rows']:,} rows).</p><table><tr><th></th><th>log-loss</th><th>Brier</th>"
            f"<th>ECE ({N_BINS} bins)</th><th>accuracy</th></tr>{rows}</table>"
        )
    if curves is not None:
        y, before, after, classes = curves
        probas = {"before": before} if after is None else {"before calibration": before, "after calibration": after}
        try:
            from ..metrics import reliability_diagram

            png = reliability_diagram(y, probas, classes=classes, n_bins=N_BINS, title=f"Reliability: {title}")
            figure = (
                "<h2>Reliability diagram</h2><p>Top-label confidence against accuracy per bin; "
                "the diagonal is perfect calibration.</p>"
                f'<img alt="reliability diagram" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'
            )
        except ImportError:
            figure = "<p><em>Reliability diagram left out: matplotlib is not installed (pip install 'nbayes[plot]').</em></p>"
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>nbayes evaluate: {html.escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:.25em .6em;text-align:right}}
th{{background:#f4f4f4}}</style></head><body>
<h1>nbayes evaluate: {html.escape(title)}</h1>
<p>{result['rows']:,} rows{html.escape(f", {result['cv']}-fold cross-validation" if result.get('cv') else '')}: {head}.</p>
<table><tr><th>class</th><th>precision</th><th>recall</th><th>F1</th><th>support</th></tr>{per_class}</table>
<h2>Confusion matrix</h2>
<table><tr><th>true &#92; predicted</th>{''.join(f'<th>{c}</th>' for c in labels)}</tr>{cm}</table>
{calib}
{figure}
</body></html>
"""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(path)
    return path
