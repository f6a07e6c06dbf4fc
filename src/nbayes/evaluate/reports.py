"""Calibration measured before and after a map, the reliability data, and the reports of
``nbayes evaluate``: a console table and one self-contained HTML page.

The measures of probabilities are :func:`calibration_scores` (log-loss, Brier score, top-label
ECE over :data:`N_BINS` bins, accuracy). Three ways to get them before and after calibration:

- :func:`training_calibration`: a :class:`~nbayes.calibration.CalibratedClassifier` just
  fitted, on the out-of-fold scores its map was fitted on (what ``nbayes train --calibrate``
  prints);
- :func:`calibration_of_model`: a calibrated model on labelled rows it was not trained on (its
  base model's probabilities, then its own, from one pass of the base model);
- :func:`cross_validated_calibration`: per outer fold, a calibrated model fitted on the other
  folds and measured on this one.

The last two also return the :class:`CalibrationCurves` that :func:`write_report` draws as a
reliability diagram.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

from .._validation import encode_labels, sorted_unique
from ..calibration import CalibratedClassifier, describe
from ..errors import DataError, InvalidParameterError
from .figures import Curve, confusion_svg, reliability_svg
from .metrics import brier_score, expected_calibration_error, label_key, log_loss, reliability_curve

__all__ = [
    "N_BINS",
    "CalibrationCurves",
    "calibration_of_model",
    "calibration_scores",
    "calibration_table",
    "cross_validated_calibration",
    "reliability_figure",
    "training_calibration",
    "uncalibrated_curves",
    "write_report",
]

#: bins of the expected calibration error and of the reliability diagram
N_BINS = 15


class CalibrationCurves(NamedTuple):
    """The data of a reliability diagram: true labels, probabilities before calibration and
    after (None: no calibration), their columns' classes."""

    y: np.ndarray
    before: np.ndarray
    after: np.ndarray | None
    classes: np.ndarray


def calibration_scores(y: Any, P: Any, classes: Any) -> dict[str, float]:
    """Log-loss, Brier score, top-label ECE (:data:`N_BINS` bins) and accuracy of the
    probabilities ``P`` (columns: ``classes``) against the labels ``y``."""
    y = np.asarray(y)
    P = np.asarray(P, dtype=np.float64)
    classes = np.asarray(classes)
    acc = float(np.mean(classes[np.argmax(P, axis=1)] == y)) if len(y) else 0.0
    return {
        "log_loss": log_loss(y, P, classes=classes),
        "brier": brier_score(y, P, classes=classes),
        "ece": expected_calibration_error(y, P, classes=classes, n_bins=N_BINS),
        "accuracy": acc,
    }


def _known(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Rows whose label is one of ``classes``."""
    _, unknown = encode_labels(y, classes)
    return ~unknown


def _calibrated(model: Any, what: str) -> CalibratedClassifier:
    if "calibrated" not in getattr(model, "capabilities", frozenset()):
        raise InvalidParameterError(f"{what}: expected a fitted CalibratedClassifier, got {type(model).__name__}")
    model.check_fitted()
    calibrated: CalibratedClassifier = model
    return calibrated


def training_calibration(model: Any, y: Any) -> dict[str, Any]:
    """The measures of a :class:`~nbayes.calibration.CalibratedClassifier` just fitted on
    labels ``y``, on its out-of-fold scores: before its map (``oof_log_proba_``) and after it
    (``oof_calibrated_log_proba_``: each row through the map fitted without it; an ensemble:
    the map of the split that held the row out). With :func:`nbayes.calibration.describe`'s
    fields and the number of folds."""
    model = _calibrated(model, "training_calibration")
    if getattr(model, "oof_log_proba_", None) is None:
        raise DataError("training_calibration: the model holds no out-of-fold scores (loaded from a file?); "
                        "measure it on held-out rows with calibration_of_model")
    y = np.asarray(y)
    classes = np.asarray(model.classes_)
    return {
        **describe(model),
        "cv": model.n_splits_,
        "out_of_fold_before": calibration_scores(y, np.exp(model.oof_log_proba_), classes),
        "out_of_fold_after": calibration_scores(y, np.exp(model.oof_calibrated_log_proba_), classes),
    }


def calibration_of_model(model: Any, X: Any, y: Any) -> tuple[dict[str, Any], CalibrationCurves]:
    """A calibrated model on labelled rows (X, y): its base model's probabilities (before) and
    its own (after), one pass of the base model. Rows whose label the model never saw are left
    out. Returns the measures (with :func:`nbayes.calibration.describe`'s fields) and the
    reliability data."""
    model = _calibrated(model, "calibration_of_model")
    before_log, after_log = model.log_proba_before_after(X)
    before, after = np.exp(before_log), np.exp(after_log)
    y = np.asarray(y)
    classes = np.asarray(model.classes_)
    keep = _known(y, classes)
    y, before, after = y[keep], before[keep], after[keep]
    out = {
        **describe(model),
        "measured_on": "the evaluation data",
        "rows": int(keep.sum()),
        "before": calibration_scores(y, before, classes),
        "after": calibration_scores(y, after, classes),
    }
    return out, CalibrationCurves(y, before, after, classes)


def uncalibrated_curves(y: Any, P: Any, classes: Any) -> CalibrationCurves:
    """The reliability data of an uncalibrated model's probabilities ``P`` (rows whose label
    is not one of ``classes`` left out)."""
    y, classes = np.asarray(y), np.asarray(classes)
    keep = _known(y, classes)
    return CalibrationCurves(y[keep], np.asarray(P, dtype=np.float64)[keep], None, classes)


def cross_validated_calibration(
    make: Callable[[], Any],
    to_input: Callable[[Any, np.ndarray], Any],
    y: Any,
    folds: list[np.ndarray],
    method: str,
) -> tuple[dict[str, Any], CalibrationCurves]:
    """Per outer fold (``folds``: the held-out rows of each): a CalibratedClassifier of
    ``make()`` (inner 5-fold calibration, fewer folds when a class is rarer) fitted on the
    other folds' rows, measured on this fold before (its base model) and after calibration.
    ``to_input(model, rows)`` gives the model's input for those rows. Returns the measures over
    all rows and the reliability data."""
    y = np.asarray(y)
    classes = sorted_unique(y)
    pos = {label_key(c): j for j, c in enumerate(classes.tolist())}
    before = np.zeros((len(y), len(classes)))
    after = np.zeros_like(before)
    temps = []
    for test in folds:
        train = np.setdiff1d(np.arange(len(y)), test)
        counts = np.unique(np.asarray([pos[label_key(v)] for v in y[train]]), return_counts=True)[1]
        inner = int(min(5, counts.min())) if len(counts) else 0
        if inner < 2:
            raise DataError(
                "--calibrate: a class has fewer than 2 rows in an outer fold's training part; "
                "calibration needs 2 or more (use fewer --cv folds)"
            )
        base = make()
        cal = CalibratedClassifier(base, method=method, cv=inner).fit(to_input(base, train), y[train])
        b, a = cal.log_proba_before_after(to_input(cal.base_estimator_, test))
        cols = np.asarray([pos[label_key(c)] for c in cal.classes_.tolist()], dtype=np.intp)
        before[np.ix_(test, cols)] = np.exp(b)
        after[np.ix_(test, cols)] = np.exp(a)
        if method == "temperature":
            fitted_map = cal.calibrator_
            assert fitted_map is not None  # ensemble=False (the default): one map over all folds
            temps.append(float(fitted_map.temperature_))
    out: dict[str, Any] = {
        "method": method,
        "measured_on": f"{len(folds)}-fold cross-validation (each fold's map fitted on its training part)",
        "rows": int(len(y)),
        "before": calibration_scores(y, before, classes),
        "after": calibration_scores(y, after, classes),
    }
    if temps:
        out["temperature_per_fold"] = temps
    return out, CalibrationCurves(y, before, after, classes)


# ---------------------------------------------------------------------------- text and HTML
def calibration_table(console: Any, c: dict[str, Any]) -> None:
    """Print the before / after table of :func:`calibration_of_model` or
    :func:`cross_validated_calibration` on a ``rich`` console."""
    from rich.table import Table

    head = f"calibration ({c['method']}"
    if "temperature" in c:
        head += f", T = {c['temperature']:.4g}, eps = {c['eps']:.3g}"
    console.print(head + f"), measured on {c['measured_on']}:")
    t = Table(show_edge=False)
    for col in ("", "log-loss", "Brier", f"ECE ({N_BINS} bins)", "accuracy"):
        t.add_column(col, justify="left" if not col else "right")
    for name in ("before", "after"):
        s = c[name]
        t.add_row(name, f"{s['log_loss']:.4f}", f"{s['brier']:.4f}", f"{s['ece']:.4f}", f"{100 * s['accuracy']:.2f}%")
    console.print(t)


def reliability_figure(curves: CalibrationCurves, title: str = "Reliability diagram") -> str:
    """The reliability diagram of ``curves`` (before calibration, and after it when there is an
    after) as inline SVG (:mod:`nbayes.evaluate.figures`; no matplotlib), over :data:`N_BINS` bins."""
    y, before, after, classes = curves
    probas = {"before": before} if after is None else {"before calibration": before, "after calibration": after}
    drawn = []
    for name, P in probas.items():
        c = reliability_curve(y, P, classes=classes, n_bins=N_BINS)
        ece = float(np.sum(c.weight * np.abs(c.accuracy - c.confidence)))
        drawn.append(Curve(name, c.confidence.tolist(), c.accuracy.tolist(), c.weight.tolist(), ece))
    return reliability_svg(drawn, n_bins=N_BINS, title=title)


def write_report(path: str | Path, result: dict[str, Any], curves: CalibrationCurves | None, title: str) -> Path:
    """One self-contained HTML page (no external request): the measures of
    :func:`nbayes.evaluate.classification_measures` (``result``), the confusion matrix (a
    table and a figure), with ``result["calibration"]`` the before / after table, and with
    ``curves`` the reliability diagram. The figures are inline SVG written by nbayes (the core
    install draws them all). Written to a temporary name, then renamed."""
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
        figure = (
            "<h2>Reliability diagram</h2><p>Top-label confidence against accuracy per bin; "
            "the diagonal is perfect calibration.</p>\n" + reliability_figure(curves, f"Reliability: {title}")
        )
    matrix = confusion_svg(result["labels"], result["confusion_matrix"])
    cv = f", {result['cv']}-fold cross-validation" if result.get("cv") else ""
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>nbayes evaluate: {html.escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;color:#222}}
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:.25em .6em;text-align:right}}
th{{background:#f4f4f4}}svg{{max-width:100%;height:auto;display:block;margin:1em 0}}</style></head><body>
<h1>nbayes evaluate: {html.escape(title)}</h1>
<p>{result['rows']:,} rows{html.escape(cv)}: {head}.</p>
<table><tr><th>class</th><th>precision</th><th>recall</th><th>F1</th><th>support</th></tr>{per_class}</table>
<h2>Confusion matrix</h2>
{matrix}
<table><tr><th>true &#92; predicted</th>{''.join(f'<th>{c}</th>' for c in labels)}</tr>{cm}</table>
{calib}
{figure}
</body></html>
"""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(path)
    return path
