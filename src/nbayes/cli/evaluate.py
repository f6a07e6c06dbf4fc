"""``nbayes evaluate``: a saved model on labelled rows, or K-fold cross-validation from a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import numpy as np

from .._validation import check_y, classes_and_codes
from ..errors import DataError
from ..evaluate import (
    CalibrationCurves,
    calibration_of_model,
    calibration_table,
    classification_measures,
    cross_validated_calibration,
    uncalibrated_curves,
    write_report,
)
from ..model_selection import StratifiedKFold, cross_val_predict
from ..multilabel import MultiLabel, cross_validate_labels
from ._columns import columns_of, file_rows, labelled, model_input
from ._models import choose_columns, make_model
from ._modelfile import load
from ._multilabel import label_sets, measures as ml_measures, print_folds, print_measures as print_ml_measures
from ._options import CALIBRATION, MODELS, columns_option, na_option, overrides, parse_settings, settings_option, split
from ._output import chunks, console, emit, scores_table
from ._paths import check_output
from ._read import DataFile


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="[MODEL] DATA")
@click.option("--target", required=True, metavar="COL", help="The label column.")
@click.option("--cv", type=click.IntRange(2, None), default=None,
              help="K-fold cross-validation of a model trained from DATA alone (no MODEL).")
@click.option("--model", "model_name", type=click.Choice(MODELS), default="auto", show_default=True,
              help="With --cv: the model to train.")
@click.option("--alpha", type=float, default=None)
@click.option("--C", "C", type=float, default=None)
@settings_option
@columns_option
@na_option
@click.option("--calibrate", type=click.Choice(CALIBRATION), is_flag=False, flag_value="temperature", default=None,
              help="With --cv: calibrate each fold's model (alone: temperature); report before/after.")
@click.option("--report", "report_path", default=None, type=click.Path(),
              help="Also write an HTML report (measures, calibration, reliability diagram).")
@click.option("--multilabel", is_flag=True,
              help="With --cv: DATA's labels are sets (as nbayes train --multilabel); micro- and macro-F1 and "
                   "precision@1 per fold.")
@click.option("--labels-sep", "labels_sep", default=None, metavar="SEP",
              help="The separator of labels in a CSV / TSV field (such as ';'), as in nbayes train.")
@click.option("--json", "as_json", is_flag=True, help="Print the measures as JSON on stdout.")
def evaluate(paths: tuple[str, ...], target: str, cv: int | None, model_name: str, alpha: float | None,
             C: float | None, ignore: tuple[str, ...], numeric_cols: tuple[str, ...], categorical_cols: tuple[str, ...],
             text_cols: tuple[str, ...], boolean_cols: tuple[str, ...], binned_cols: tuple[str, ...], na_values: tuple[str, ...],
             calibrate: str | None, report_path: str | None, multilabel: bool, labels_sep: str | None,
             as_json: bool, settings: tuple[str, ...]) -> None:
    """Accuracy, macro-F1, log-loss, per-class precision/recall and the confusion matrix.

    \b
    A calibrated MODEL (nbayes train --calibrate) is measured before and after its map
    (log-loss, Brier score, expected calibration error); with --cv K --calibrate METHOD,
    each fold's model is calibrated on its training part and measured on the held-out fold.

    \b
    Examples:
      nbayes evaluate spam.nbm test.csv --target label
      nbayes evaluate spam.csv --target label --cv 10
      nbayes evaluate spam.csv --target label --cv 5 --calibrate --report report.html
      nbayes evaluate news.jsonl --target labels --cv 5 --multilabel
    """
    if cv is None and len(paths) != 2:
        raise click.UsageError("evaluate takes MODEL DATA (or DATA with --cv K)")
    if settings and cv is None:
        raise click.UsageError("--set sets a parameter of the model trained by --cv K; a MODEL file has its own")
    params = parse_settings(settings, alpha=alpha, C=C)
    if cv is not None and len(paths) != 1:
        raise click.UsageError("with --cv, evaluate takes DATA only (the model is trained per fold)")
    if multilabel and cv is None:
        raise click.UsageError("--multilabel is for DATA --cv K (a saved multi-label MODEL knows it is one)")
    if labels_sep is not None and not multilabel and cv is not None:
        raise click.UsageError("--labels-sep splits label sets: give it with --multilabel")
    if multilabel and (report_path or calibrate):
        raise click.UsageError("--report and --calibrate are for single-label models")
    if report_path:
        check_output(report_path, "the report", inputs=paths)
    na = split(na_values)
    calibration: tuple[dict[str, Any] | None, CalibrationCurves]
    if cv is None:
        model_path, data = paths
        model, _, cli = load(model_path)
        source = DataFile(data, na or cli.get("na_values") or ())
        lab = labelled(chunks(source, "reading", not as_json), target, source)
        cols = columns_of(model, cli, lab.X, target)
        Xm = model_input(model, lab.X, cols, source)
        if "label_sets" in model.capabilities:  # label sets: micro / macro-F1, precision@1, per label
            if report_path or calibrate:
                raise click.UsageError("--report and --calibrate are for single-label models")
            sets = label_sets(lab.y, labels_sep if labels_sep is not None else cli.get("labels_sep"), source)
            with file_rows(source, lab.rows, columns=cols):
                multi = ml_measures(model, sets, model.predict(Xm), model.predict_proba(Xm))
            multi.update(model=str(model_path), data=str(data), rows_without_label=lab.dropped)
            if as_json:
                emit(multi)
            else:
                print_ml_measures(multi)
            return
        with file_rows(source, lab.rows, columns=cols):
            P = model.predict_proba(Xm)
            result = classification_measures(lab.y, model.predict(Xm), P, model.classes_)
            calibration = _calibration_of(model, Xm, lab.y, P, calibrate, model_path)
        result.update(model=str(model_path), data=str(data), rows_without_label=lab.dropped)
    else:
        source = DataFile(paths[0], na)
        lab = labelled(chunks(source, "reading", not as_json), target, source)
        y = lab.y
        if len(y) < cv:
            raise source.fail(f"{len(y)} labelled rows cannot make {cv} folds")
        kinds = choose_columns(lab.X, split(ignore), overrides(numeric_cols, categorical_cols, text_cols, boolean_cols, binned_cols),
                               source.name)
        if multilabel:  # label sets: each fold's model fitted (thresholds tuned) on the other folds only
            ml = MultiLabel(make_model(model_name, kinds, alpha, C, source, params))
            with file_rows(source, lab.rows, columns=kinds):
                folds = cross_validate_labels(ml, model_input(ml, lab.X, kinds, source),
                                              label_sets(y, labels_sep, source), cv=cv)
            folds.update(data=str(source), rows=len(y), cv=cv, model=model_name, rows_without_label=lab.dropped)
            if as_json:
                emit(folds)
            else:
                print_folds(folds)
            return
        # out-of-fold probabilities from fold statistics: each fold counted once (issue #9)
        m = make_model(model_name, kinds, alpha, C, source, params)
        splits = list(StratifiedKFold(cv, shuffle=True, random_state=0).split(np.empty((len(y), 0)), y))
        with file_rows(source, lab.rows, columns=kinds):
            P_all = cross_val_predict(m, model_input(m, lab.X, kinds, source), y, cv=splits, method="predict_proba",
                                      verbose=True)
            classes_all = classes_and_codes(check_y(y, len(y)))[0]
        result = classification_measures(y, classes_all[np.argmax(P_all, axis=1)], P_all, classes_all)
        result.update(data=str(source), cv=cv, model=model_name, rows_without_label=lab.dropped)
        if kinds.left_out:
            result["left_out"] = dict(kinds.left_out)
        calibration = (None, CalibrationCurves(y, P_all, None, classes_all))
        if calibrate:
            X = lab.X
            with file_rows(source, lab.rows, columns=kinds):
                calibration = cross_validated_calibration(
                    lambda: make_model(model_name, kinds, alpha, C, source, params),
                    lambda m, rows: model_input(m, X[rows], kinds, source), y, [test for _, test in splits], calibrate,
                )
    if calibration[0] is not None:
        result["calibration"] = calibration[0]
    if report_path:
        _report(report_path, result, calibration[1], str(paths[-1]))
        result["report"] = str(report_path)
    if as_json:
        emit(result)
        return
    _print_measures(result)
    for c, why in result.get("left_out", {}).items():
        console().print(f"column {c!r} left out: {why}")
    if "calibration" in result:
        calibration_table(console(), result["calibration"])
    if report_path:
        console().print(f"report: {report_path}")


def _report(path: str, result: dict[str, Any], curves: CalibrationCurves, title: str) -> None:
    """The HTML report, written atomically; a failure names ``path`` and leaves nothing."""
    try:
        write_report(path, result, curves, title)
    except OSError as exc:
        tmp = Path(path).with_name(f".{Path(path).name}.tmp")
        if tmp.exists():
            tmp.unlink()
        raise DataError(f"{path}: cannot write the report ({exc.strerror or exc})") from None


def _calibration_of(model: Any, Xm: Any, y: np.ndarray, P: np.ndarray, calibrate: str | None,
                    model_path: str) -> tuple[dict[str, Any] | None, CalibrationCurves]:
    """(calibration measures or None, the reliability curves' data) of a loaded model."""
    if hasattr(model, "base_estimator_"):  # a CalibratedClassifier
        method = model.calibrators_[0].method
        if calibrate and calibrate != method:
            raise click.UsageError(
                f"{model_path} is calibrated with {method}; --calibrate {calibrate} "
                "applies to DATA --cv K (calibrate at training: nbayes train --calibrate METHOD)"
            )
        return calibration_of_model(model, Xm, y)
    if calibrate:
        raise click.UsageError(
            f"{model_path} is not calibrated, and its test data must not calibrate it: train it with "
            "nbayes train --calibrate, or use evaluate DATA --cv K --calibrate"
        )
    return None, uncalibrated_curves(y, P, model.classes_)


def _print_measures(r: dict[str, Any]) -> None:
    from rich.table import Table

    con = console()
    head = f"{r['rows']:,} rows" + (f", {r['cv']}-fold cross-validation" if r.get("cv") else "")
    con.print(f"[bold]{head}[/]")
    line = f"accuracy {100 * r['accuracy']:.2f}%   macro-F1 {r['macro_f1']:.4f}"
    if "log_loss" in r:
        line += f"   log-loss {r['log_loss']:.4f}"
    con.print(line)
    con.print(scores_table("class", r["per_class"]))
    con.print("confusion matrix (rows: true, columns: predicted)")
    cm = Table(show_edge=False)
    cm.add_column("")
    for label in r["labels"]:
        cm.add_column(str(label), justify="right")
    for label, row in zip(r["labels"], r["confusion_matrix"]):
        cm.add_row(str(label), *[f"{v:,}" for v in row])
    con.print(cm)
