"""The ``nbayes`` command line. Imports of numpy, the models and rich happen inside commands, so
``nbayes --help`` starts fast.

Bad input (a missing or unreadable file, a column that does not exist, a corrupted model file)
ends with one line on stderr naming the file, and exit status 2; no traceback, and no partial
output file (model files and prediction files are written to a temporary name and renamed).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

MODELS = ("auto", "categorical", "bernoulli", "multinomial", "complement", "gaussian", "logistic", "nblr")
CALIBRATION = ("temperature", "sigmoid", "isotonic")


class _Group(click.Group):
    """Turns every expected failure into one line on stderr and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("nbayes: interrupted; nothing was written", err=True)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the boundary: one line, no traceback
            if os.environ.get("NBAYES_DEBUG"):
                raise
            click.echo(f"nbayes: error: {_message(exc)}", err=True)
            sys.exit(2)


def _message(exc: BaseException) -> str:
    from .errors import NBayesError

    if isinstance(exc, NBayesError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"{exc.filename}: no such file"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return f"{type(exc).__name__}: {exc} (set NBAYES_DEBUG=1 for the traceback)"


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nbayes")
def main() -> None:
    """nbayes: exact, fast, mergeable Naive Bayes classifiers (and logistic regression).

    \b
    Examples:
      nbayes demo                                      worked examples on bundled data
      nbayes train spam.csv --target label -o spam.nbm
      nbayes predict spam.nbm new.csv -o predictions.csv --proba
      nbayes evaluate spam.nbm test.csv --target label
      nbayes evaluate spam.csv --target label --cv 10  cross-validation from a file alone
      nbayes explain spam.nbm "WIN a FREE prize now"
      nbayes info spam.nbm
      nbayes serve spam.nbm --port 8000                HTTP API and a web page that shows why
      nbayes compare pima.csv --target class -o report/
    """


def _emit(data: dict[str, Any]) -> None:
    click.echo(json.dumps(data, indent=2, default=_json_default))


def _json_default(v: Any) -> Any:
    import numpy as np

    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def _console():
    from rich.console import Console

    return Console(stderr=False, highlight=False)


def _progress(what: str):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(
        SpinnerColumn(), TextColumn(what), BarColumn(), TextColumn("{task.completed:,} rows"),
        TimeElapsedColumn(), transient=True, console=Console(stderr=True),
    )


def _frames(data: str, what: str, show: bool = True):
    """The chunks of DATA, with a progress line on a terminal (stderr) while they come."""
    from ._cli.data import iter_frames

    if not (show and sys.stderr.isatty()):
        yield from iter_frames(data)
        return
    with _progress(what) as progress:
        task = progress.add_task(what, total=None)
        for chunk in iter_frames(data):
            yield chunk
            progress.update(task, advance=chunk.height)


def _read_all(data: str, what: str, show: bool = True):
    import polars as pl

    frames = list(_frames(data, what, show))
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")


# ---------------------------------------------------------------------------- training
def _columns_option(f):
    for name, kind in (("numeric", "gaussian"), ("categorical", "categorical"), ("text", "text"), ("boolean", "bernoulli")):
        f = click.option(
            f"--{name}", f"{name}_cols", multiple=True, metavar="COL[,COL]",
            help=f"Treat these columns as {name} ({kind}).",
        )(f)
    return click.option("--ignore", multiple=True, metavar="COL[,COL]", help="Leave these columns out.")(f)


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def _overrides(numeric_cols, categorical_cols, text_cols, boolean_cols) -> dict[str, str]:
    out: dict[str, str] = {}
    for cols, kind in ((numeric_cols, "gaussian"), (categorical_cols, "categorical"), (text_cols, "text"), (boolean_cols, "bernoulli")):
        for c in _split(cols):
            out[c] = kind
    return out


def _make_model(name: str, kinds: dict[str, str], alpha: float | None, C: float | None, path: Any):
    """The estimator for ``--model`` over the typed columns."""
    import nbayes

    from .errors import DataError

    texts = [c for c, k in kinds.items() if k == "text"]
    single_text = len(kinds) == 1 and len(texts) == 1
    a = {} if alpha is None else {"alpha": alpha}
    c = {} if C is None else {"C": C}
    if name == "auto":
        return nbayes.TextClassifier(**a) if single_text else nbayes.NaiveBayes(column_types=kinds, **a)
    if name in ("multinomial", "complement", "bernoulli", "nblr") and single_text:
        return nbayes.TextClassifier(model=name, **a, **(c if name == "nblr" else {}))
    if name == "nblr":
        raise DataError(f"{path}: --model nblr takes one text column (found columns {list(kinds)})")
    if texts:
        raise DataError(
            f"{path}: column {texts[0]!r} is text; --model {name} takes one text column alone or "
            "no text (use --model auto, or --ignore / --categorical the column)"
        )
    return {
        "categorical": lambda: nbayes.CategoricalNB(**a),
        "bernoulli": lambda: nbayes.BernoulliNB(**a),
        "multinomial": lambda: nbayes.MultinomialNB(**a),
        "complement": lambda: nbayes.ComplementNB(**a),
        "gaussian": lambda: nbayes.GaussianNB(),
        "logistic": lambda: nbayes.LogisticRegression(**c),
    }[name]()


def _streams(model: Any) -> bool:
    """Whether ``partial_fit`` over chunks equals ``fit`` for this model."""
    return type(model).__name__ != "LogisticRegression" and getattr(model, "model", "") != "nblr"


def _train(data: str, target: str, model_name: str, alpha, C, ignore, overrides, show_progress: bool,
           calibrate: str | None = None, unlabeled: str | None = None, semi_supervised: bool = False,
           calibrate_ensemble: bool = False):
    """Read DATA in chunks, type its columns on the first, train; returns (model, summary).
    With ``calibrate``: all rows are held, and the model is a CalibratedClassifier (with
    ``calibrate_ensemble``: scikit-learn's ensemble design, 5 fold models and maps). With
    ``unlabeled`` (a file) or ``semi_supervised`` (DATA's rows without a label): EM."""
    import numpy as np
    import polars as pl

    from ._cli.data import choose_columns, model_input, split_target, unlabelled_rows
    from .errors import DataError

    t0 = time.perf_counter()
    model = kinds = None
    rows = dropped = 0
    held: list[Any] = []
    unlabelled: list[Any] = []
    em = unlabeled is not None or semi_supervised
    for chunk in _frames(data, "reading and training", show_progress):
        X, y, lost = split_target(chunk, target, data)
        dropped += lost
        if kinds is None:
            kinds = choose_columns(X, _split(ignore), overrides, data)
            model = _make_model(model_name, kinds, alpha, C, data)
        if semi_supervised and lost:
            unlabelled.append(unlabelled_rows(chunk, target, data))
        if len(y) == 0:
            continue
        rows += len(y)
        if _streams(model) and not calibrate and not em:
            model.partial_fit(model_input(model, X, kinds, data), y)
        else:
            held.append(chunk)
    if rows == 0:
        raise DataError(f"{data}: column {target!r} (the label) is missing in every row; nothing to learn")
    if unlabeled is not None:
        for chunk in _frames(unlabeled, "reading the unlabelled rows", show_progress):
            unlabelled.append(chunk.drop(target) if target in chunk.columns else chunk)
    calibration = None
    semi = None
    if em:
        frame = pl.concat(held, how="vertical_relaxed")
        X, y, _ = split_target(frame, target, data)
        source = unlabeled if unlabeled is not None else data
        Xu = pl.concat(unlabelled, how="vertical_relaxed") if unlabelled else X.head(0)
        model.fit(model_input(model, X, kinds, data), y, X_unlabeled=model_input(model, Xu, kinds, source))
        semi = {"unlabelled_rows": int(len(Xu)), "source": str(source),
                "em_iterations": int(getattr(model, "n_iter_", 0)),
                "unlabeled_weight": getattr(model, "unlabeled_weight_", None)}
    elif calibrate:
        from ._cli.calibration import scores
        from .calibration import CalibratedClassifier
        from .serve._model import calibration_info

        frame = pl.concat(held, how="vertical_relaxed")
        X, y, _ = split_target(frame, target, data)
        Xm = model_input(model, X, kinds, data)
        model = CalibratedClassifier(model, method=calibrate, ensemble=calibrate_ensemble).fit(Xm, y)
        oof = model.oof_log_proba_
        if model.calibrator_ is not None:
            after = model.calibrator_.transform(oof)
        else:  # an ensemble: each row through the map of the split that held it out
            from .model_selection import check_cv

            after = np.empty_like(oof)
            for (_, test), cal in zip(check_cv(5, Xm, y), model.calibrators_, strict=True):
                after[test] = cal.transform(oof[test])
        calibration = {
            **calibration_info(model), "cv": 5,
            "out_of_fold_before": scores(y, np.exp(oof), model.classes_),
            "out_of_fold_after": scores(y, np.exp(after), model.classes_),
        }
        del model.oof_log_proba_
    elif not _streams(model):
        frame = pl.concat(held, how="vertical_relaxed")
        X, y, _ = split_target(frame, target, data)
        model.fit(model_input(model, X, kinds, data), y)
    summary = {
        "data": str(data),
        "target": target,
        "model": type(model).__name__ + (f"({model.model})" if hasattr(model, "model") and type(model).__name__ == "TextClassifier" else ""),
        "columns": kinds,
        "rows": rows,
        "rows_without_label": dropped,
        "classes": [c.item() if isinstance(c, np.generic) else c for c in model.classes_],
        "seconds": round(time.perf_counter() - t0, 3),
    }
    if calibration is not None:
        summary["calibration"] = calibration
    if semi is not None:
        summary["semi_supervised"] = semi
        if semi_supervised:
            summary["rows_without_label"] = 0  # used as unlabelled rows, not skipped
    return model, summary


def _train_dask(address: str, data: str, target: str, model_name: str, alpha, C, ignore, overrides):
    """The same training on a Dask cluster: partitions counted by the workers, merged in a tree."""
    import numpy as np

    from ._cli.data import choose_columns
    from .errors import DataError

    try:
        import dask.dataframe as dd
        from distributed import Client

        from . import dask as nbd
    except ImportError:
        raise DataError("--dask needs Dask: pip install 'nbayes[dask]'") from None
    t0 = time.perf_counter()
    name = str(data).lower()
    with Client(address, timeout="20s"):
        if name.endswith(".parquet") or Path(data).is_dir():
            ddf = dd.read_parquet(data)
        elif ".jsonl" in name or ".ndjson" in name or name.endswith((".json", ".json.gz")):
            ddf = dd.read_json(data, lines=True, blocksize=None if name.endswith(".gz") else 2**26)
        else:
            ddf = dd.read_csv(data, sep="\t" if ".tsv" in name else ",", blocksize=None if name.endswith(".gz") else 2**26)
        if target not in ddf.columns:
            raise DataError(f"{data}: no column {target!r} (the --target); columns are {list(ddf.columns)}")
        import polars as pl

        head = pl.from_pandas(ddf.head(1000, npartitions=-1))
        kinds = choose_columns(head.drop(target), _split(ignore), overrides, data)
        model = _make_model(model_name, kinds, alpha, C, data)
        ddf = ddf[list(kinds) + [target]].dropna(subset=[target])
        if type(model).__name__ == "LogisticRegression":
            model = nbd.fit_logistic(model, ddf, target=target)
        elif getattr(model, "model", None) == "nblr":
            raise DataError("--dask: model 'nblr' needs all documents at once; train it without --dask")
        else:
            if type(model).__name__ == "NaiveBayes":
                model.set_params(column_types=kinds)
            text = next(iter(kinds)) if type(model).__name__ == "TextClassifier" else None
            model = nbd.fit(model, ddf, target=target, text=text)
        rows = int(ddf.shape[0].compute())
    summary = {
        "data": str(data), "target": target, "model": type(model).__name__, "columns": kinds,
        "rows": rows, "rows_without_label": None, "dask": address,
        "classes": [c.item() if isinstance(c, np.generic) else c for c in model.classes_],
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return model, summary


def _save(model: Any, path: str, meta: dict[str, Any]) -> None:
    from .io.model_file import save_state

    state = model._state()
    state["meta"]["cli"] = meta
    save_state(path, state)


@main.command()
@click.argument("data", type=click.Path())
@click.option("--target", required=True, metavar="COL", help="The label column.")
@click.option("--model", "model_name", type=click.Choice(MODELS), default="auto", show_default=True,
              help="auto: NaiveBayes over typed columns (TextClassifier for one text column).")
@click.option("--alpha", type=float, default=None, help="Smoothing of the Naive Bayes models.")
@click.option("--C", "C", type=float, default=None, help="Inverse L2 penalty (logistic, nblr).")
@click.option("-o", "--output", required=True, type=click.Path(), help="Where to write the model file.")
@_columns_option
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS",
              help="Train on an existing Dask cluster (its scheduler address); needs nbayes[dask].")
@click.option("--calibrate", type=click.Choice(CALIBRATION), is_flag=False, flag_value="temperature", default=None,
              help="Calibrate the probabilities on 5-fold out-of-fold scores (alone: temperature).")
@click.option("--calibrate-ensemble", "calibrate_ensemble", is_flag=True,
              help="With --calibrate: keep the 5 fold models, each with its own map, and average "
                   "their probabilities (scikit-learn's ensemble=True; 5x the model file).")
@click.option("--unlabeled", "unlabeled", default=None, type=click.Path(), metavar="FILE",
              help="Rows without labels (same columns) to learn from too, by EM (Nigam et al. 2000).")
@click.option("--semi-supervised", "semi_supervised", is_flag=True,
              help="Learn by EM from DATA's rows whose label is empty too (else they are skipped).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
def train(data, target, model_name, alpha, C, output, ignore, numeric_cols, categorical_cols, text_cols, boolean_cols, dask_address, calibrate, calibrate_ensemble, unlabeled, semi_supervised, as_json):
    """Train a model on DATA (CSV, TSV, Parquet, JSON Lines, or a folder per class) and save it.

    \b
    Columns are typed from the data: numbers Gaussian, strings categorical, booleans
    Bernoulli, long varied strings text (a bag of words); --numeric, --categorical, --text,
    --boolean and --ignore override. Rows without a label are skipped and counted.
    The file streams in chunks for the Naive Bayes models.

    \b
    Examples:
      nbayes train spam.csv --target label -o spam.nbm
      nbayes train adult.csv --target income --categorical education_num -o adult.nbm
      nbayes train reviews.jsonl --target label --model nblr -o reviews.nbm
      nbayes train spam.csv --target label -o spam.nbm --calibrate isotonic
    """
    overrides = _overrides(numeric_cols, categorical_cols, text_cols, boolean_cols)
    if calibrate_ensemble and not calibrate:
        raise click.UsageError("--calibrate-ensemble calibrates: give it with --calibrate [METHOD]")
    if (unlabeled or semi_supervised) and (calibrate or dask_address):
        raise click.UsageError("--unlabeled / --semi-supervised train by EM on all rows at once; "
                               "they do not combine with --calibrate or --dask")
    if dask_address:
        if calibrate:
            raise click.UsageError("--calibrate needs all rows at once; train without --dask")
        model, summary = _train_dask(dask_address, data, target, model_name, alpha, C, ignore, overrides)
    else:
        model, summary = _train(data, target, model_name, alpha, C, ignore, overrides, not as_json, calibrate,
                                unlabeled, semi_supervised, calibrate_ensemble)
    _save(model, output, {"target": target, "columns": summary["columns"], "rows": summary["rows"]})
    summary["output"] = str(output)
    if as_json:
        _emit(summary)
        return
    from rich.table import Table

    con = _console()
    con.print(f"columns of {data}:")
    table = Table(show_edge=False)
    table.add_column("column")
    table.add_column("treated as")
    for c, k in summary["columns"].items():
        table.add_row(str(c), k)
    con.print(table)
    con.print(
        f"trained [bold]{summary['model']}[/] on {summary['rows']:,} rows "
        + (f"({summary['rows_without_label']:,} without a label skipped), " if summary["rows_without_label"] is not None else f"on Dask at {summary.get('dask')}, ")
        + f"{len(summary['classes'])} classes, "
        f"in {summary['seconds']:.2f} s -> [bold]{output}[/]"
    )
    if "semi_supervised" in summary:
        e = summary["semi_supervised"]
        con.print(f"learned by EM from {e['unlabelled_rows']:,} unlabelled rows of {e['source']} "
                  f"({e['em_iterations']} iterations)")
    if "calibration" in summary:
        c = summary["calibration"]
        b, a = c["out_of_fold_before"], c["out_of_fold_after"]
        con.print(
            f"calibrated ({c['method']}" + (f", T = {c['temperature']:.4g}" if "temperature" in c else "")
            + (f", an ensemble of {c['ensemble']} fold models" if "ensemble" in c else "")
            + f") on 5-fold out-of-fold scores: log-loss {b['log_loss']:.4f} -> {a['log_loss']:.4f}, "
            f"ECE {b['ece']:.4f} -> {a['ece']:.4f} (the map's own fit: see nbayes evaluate for held-out figures)"
        )


# ---------------------------------------------------------------------------- prediction
def _load(path: str):
    from .io.load import load_with_state

    model, state = load_with_state(path)
    cli = state["meta"].get("cli") or {}
    return model, cli


def _columns_of(model: Any, cli: dict[str, Any], frame: Any, target: str | None) -> dict[str, str]:
    model = getattr(model, "base_estimator_", model)  # a calibrated model: its base's columns
    if cli.get("columns"):
        return dict(cli["columns"])
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return {str(n): "?" for n in names}
    cols = [c for c in frame.columns if c != (target or cli.get("target"))]
    if type(model).__name__ == "TextClassifier":
        return {("text" if "text" in cols else cols[0]): "text"}
    return {c: "?" for c in cols}


def _predict_frames(model: Any, cli: dict[str, Any], data: str, target: str | None, proba: bool):
    """Yield (frame of the input rows, predictions, probabilities or None) per chunk."""
    from ._cli.data import model_input

    cols = None
    for chunk in _frames(data, "predicting"):
        if cols is None:
            cols = _columns_of(model, cli, chunk, target)
        X = model_input(model, chunk, cols, data)
        P = model.predict_proba(X) if proba else None
        pred = model.classes_[P.argmax(axis=1)] if P is not None else model.predict(X)
        if P is not None and type(model).__name__ != "LogisticRegression":
            pred = model.predict(X)  # the model's own rule (ties, impossible rows)
        yield chunk, pred, P


@main.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.argument("data", type=click.Path())
@click.option("-o", "--output", type=click.Path(), default=None,
              help="Write predictions here (.csv, .tsv, .jsonl, .parquet); default stdout as CSV.")
@click.option("--proba", is_flag=True, help="Add one probability column per class.")
@click.option("--json", "as_json", is_flag=True, help="Print predictions as JSON on stdout.")
def predict(model_path, data, output, proba, as_json):
    """Predict the class of every row of DATA with the model in MODEL.

    \b
    Examples:
      nbayes predict spam.nbm new.csv                    CSV on stdout
      nbayes predict spam.nbm new.csv -o out.parquet --proba
    """
    import polars as pl

    model, cli = _load(model_path)
    parts = []
    for _, pred, P in _predict_frames(model, cli, data, None, proba):
        cols = {"prediction": [p.item() if hasattr(p, "item") else p for p in pred]}
        if P is not None:
            for j, c in enumerate(model.classes_):
                cols[f"p_{c}"] = P[:, j]
        parts.append(pl.DataFrame(cols))
    out = pl.concat(parts, how="vertical_relaxed")
    if as_json:
        click.echo(json.dumps(out.to_dicts(), default=_json_default))
    elif output is None:
        click.echo(out.write_csv(), nl=False)
    else:
        _write_atomic(out, output)
        click.echo(f"wrote {out.height:,} predictions to {output}", err=True)


def _write_atomic(frame: Any, output: str) -> None:
    from .errors import DataError

    path = Path(output)
    name = path.name.lower()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if name.endswith(".parquet"):
            frame.write_parquet(tmp)
        elif name.endswith((".jsonl", ".ndjson")):
            frame.write_ndjson(tmp)
        elif name.endswith((".csv", ".tsv")):
            frame.write_csv(tmp, separator="\t" if name.endswith(".tsv") else ",")
        else:
            raise DataError(f"{output}: unknown output kind; use .csv, .tsv, .jsonl or .parquet")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


# ---------------------------------------------------------------------------- evaluation
@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="[MODEL] DATA")
@click.option("--target", required=True, metavar="COL", help="The label column.")
@click.option("--cv", type=click.IntRange(2, None), default=None,
              help="K-fold cross-validation of a model trained from DATA alone (no MODEL).")
@click.option("--model", "model_name", type=click.Choice(MODELS), default="auto", show_default=True,
              help="With --cv: the model to train.")
@click.option("--alpha", type=float, default=None)
@click.option("--C", "C", type=float, default=None)
@_columns_option
@click.option("--calibrate", type=click.Choice(CALIBRATION), is_flag=False, flag_value="temperature", default=None,
              help="With --cv: calibrate each fold's model (alone: temperature); report before/after.")
@click.option("--report", "report_path", default=None, type=click.Path(),
              help="Also write an HTML report (measures, calibration, reliability diagram).")
@click.option("--json", "as_json", is_flag=True, help="Print the measures as JSON on stdout.")
def evaluate(paths, target, cv, model_name, alpha, C, ignore, numeric_cols, categorical_cols, text_cols, boolean_cols, calibrate, report_path, as_json):
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
    """
    import numpy as np

    from ._cli.data import choose_columns, model_input, split_target
    from ._cli.metrics import evaluate as measure
    from .errors import DataError

    if cv is None:
        if len(paths) != 2:
            raise click.UsageError("evaluate takes MODEL DATA (or DATA with --cv K)")
        model_path, data = paths
        model, cli = _load(model_path)
        frame = _read_all(data, "reading", not as_json)
        X, y, dropped = split_target(frame, target, data)
        cols = _columns_of(model, cli, X, target)
        Xm = model_input(model, X, cols, data)
        P = model.predict_proba(Xm)
        result = measure(y, model.predict(Xm), P, model.classes_)
        result.update(model=str(model_path), data=str(data), rows_without_label=dropped)
        calibration = _evaluate_calibration(model, Xm, y, P, calibrate, model_path)
    else:
        if len(paths) != 1:
            raise click.UsageError("with --cv, evaluate takes DATA only (the model is trained per fold)")
        data = paths[0]
        frame = _read_all(data, "reading", not as_json)
        X, y, dropped = split_target(frame, target, data)
        if len(y) < cv:
            raise DataError(f"{data}: {len(y)} labelled rows cannot make {cv} folds")
        kinds = choose_columns(X, _split(ignore), _overrides(numeric_cols, categorical_cols, text_cols, boolean_cols), data)
        # out-of-fold probabilities from fold statistics: each fold counted once (issue #9)
        from ._validation import check_y, classes_and_codes
        from .model_selection import StratifiedKFold, cross_val_predict

        m = _make_model(model_name, kinds, alpha, C, data)
        splits = list(StratifiedKFold(cv, shuffle=True, random_state=0).split(np.empty((len(y), 0)), y))
        P_all = cross_val_predict(m, model_input(m, X, kinds, data), y, cv=splits, method="predict_proba")
        classes_all = classes_and_codes(check_y(y, len(y)))[0]
        preds = classes_all[np.argmax(P_all, axis=1)]
        result = measure(y, preds, P_all, classes_all)
        result.update(data=str(data), cv=cv, model=model_name, rows_without_label=dropped)
        calibration = (None, (y, P_all, None, classes_all))
        if calibrate:
            from ._cli.calibration import cross_validated

            calibration = cross_validated(
                lambda: _make_model(model_name, kinds, alpha, C, data),
                lambda m, rows: model_input(m, X[rows], kinds, data), y, [test for _, test in splits], calibrate,
            )
    if calibration[0] is not None:
        result["calibration"] = calibration[0]
    if report_path:
        from ._cli.calibration import write_report

        write_report(report_path, result, calibration[1], str(paths[-1]))
        result["report"] = str(report_path)
    if as_json:
        _emit(result)
        return
    _print_measures(result)
    if "calibration" in result:
        from ._cli.calibration import print_calibration

        print_calibration(_console(), result["calibration"])
    if report_path:
        _console().print(f"report: {report_path}")


def _evaluate_calibration(model: Any, Xm: Any, y: Any, P: Any, calibrate: str | None, model_path: str):
    """(calibration measures or None, the reliability curves' data) of a loaded model."""
    import numpy as np

    from ._cli.calibration import _known, of_model

    if type(model).__name__ == "CalibratedClassifier":
        if calibrate and calibrate != model.calibrators_[0].method:
            raise click.UsageError(
                f"{model_path} is calibrated with {model.calibrators_[0].method}; --calibrate {calibrate} "
                "applies to DATA --cv K (calibrate at training: nbayes train --calibrate METHOD)"
            )
        return of_model(model, Xm, y)
    if calibrate:
        raise click.UsageError(
            f"{model_path} is not calibrated, and its test data must not calibrate it: train it with "
            "nbayes train --calibrate, or use evaluate DATA --cv K --calibrate"
        )
    classes = np.asarray(model.classes_)
    keep = _known(y, classes)
    return None, (y[keep], np.asarray(P)[keep], None, classes)


def _print_measures(r: dict[str, Any]) -> None:
    from rich.table import Table

    con = _console()
    head = f"{r['rows']:,} rows" + (f", {r['cv']}-fold cross-validation" if r.get("cv") else "")
    con.print(f"[bold]{head}[/]")
    line = f"accuracy {100 * r['accuracy']:.2f}%   macro-F1 {r['macro_f1']:.4f}"
    if "log_loss" in r:
        line += f"   log-loss {r['log_loss']:.4f}"
    con.print(line)
    t = Table(show_edge=False)
    for c in ("class", "precision", "recall", "f1", "support"):
        t.add_column(c, justify="left" if c == "class" else "right")
    for label, m in r["per_class"].items():
        t.add_row(label, f"{m['precision']:.3f}", f"{m['recall']:.3f}", f"{m['f1']:.3f}", f"{m['support']:,}")
    con.print(t)
    con.print("confusion matrix (rows: true, columns: predicted)")
    cm = Table(show_edge=False)
    cm.add_column("")
    for label in r["labels"]:
        cm.add_column(str(label), justify="right")
    for label, row in zip(r["labels"], r["confusion_matrix"]):
        cm.add_row(str(label), *[f"{v:,}" for v in row])
    con.print(cm)


# ---------------------------------------------------------------------------- explanations
@main.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.argument("text", required=False)
@click.option("--row", default=None, metavar="JSON", help='A row of a table model, e.g. \'{"age": 40}\'.')
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON on stdout.")
def explain(model_path, text, row, as_json):
    """Why the model predicts what it does: each word's or feature's contribution.

    \b
    Contributions are to the log-odds of the predicted class against the runner-up; with the
    baseline (prior difference) they add up to that log-odds exactly.

    \b
    Examples:
      nbayes explain spam.nbm "WIN a FREE prize now"
      nbayes explain adult.nbm --row '{"age": 40, "education": "Masters"}'
    """
    import numpy as np
    import polars as pl

    from .errors import DataError

    model, cli = _load(model_path)
    model = getattr(model, "base_estimator_", model)  # calibrated: the base model explains
    if type(model).__name__ == "TextClassifier":
        if text is None:
            raise DataError(f"{model_path}: a text model explains a TEXT argument")
        e = model.explain(text)
        out = {
            "predicted": e.predicted, "runner_up": e.runner_up, "baseline": e.baseline,
            "tokens": [{"token": t, "start": s[0], "end": s[1], "contribution": float(c)} for t, s, c in zip(e.tokens, e.spans, e.contributions)],
        }
    else:
        if row is None:
            raise DataError(f"{model_path}: a table model explains --row JSON (one object: column -> value)")
        try:
            values = json.loads(row)
        except json.JSONDecodeError as exc:
            raise DataError(f"--row: not JSON ({exc.msg})") from None
        if not isinstance(values, dict):
            raise DataError("--row: expected one JSON object, column -> value")
        cols = _columns_of(model, cli, pl.DataFrame([values]), None)
        absent = [c for c in cols if values.get(c) is None]
        if absent and type(model).__name__ not in ("NaiveBayes", "CategoricalNB", "GaussianNB", "BernoulliNB"):
            raise DataError(
                f"--row: no value for column {absent[0]!r}; a {type(model).__name__} needs every "
                f"feature ({', '.join(cols)}); only Naive Bayes leaves missing ones out"
            )
        frame = pl.DataFrame([{c: values.get(c) for c in cols}])
        from ._cli.data import model_input

        X = model_input(model, frame, cols, "--row")
        names = list(cols)
        if type(model).__name__ == "LogisticRegression":
            x = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)[0]
            Z = np.atleast_1d(model.decision_function(X)[0])
            if model.coef_.shape[0] == 1:  # binary: the log-odds of classes_[1]
                a = 1 if Z[0] > 0 else 0
                sign = 1.0 if a == 1 else -1.0
                terms, base, b = sign * model.coef_[0] * x, sign * float(model.intercept_[0]), 1 - a
            else:
                a, b = (int(i) for i in np.argsort(-Z, kind="stable")[:2])
                terms = (model.coef_[a] - model.coef_[b]) * x
                base = float(model.intercept_[a] - model.intercept_[b])
            pred, runner = model.classes_[a], model.classes_[b]
        else:
            ex = model.explain(X)
            pred, runner, terms, base = ex.log_odds(0)
            names = ex.feature_names if hasattr(ex, "feature_names") else names
        out = {
            "predicted": pred, "runner_up": runner, "baseline": float(base),
            "features": [{"feature": str(n), "value": values.get(str(n)), "contribution": float(t)} for n, t in zip(names, terms)],
        }
    if as_json:
        _emit(out)
        return
    from rich.text import Text

    con = _console()
    con.print(f"predicted [bold]{out['predicted']}[/] over {out['runner_up']} (baseline {out['baseline']:+.3f})")
    if "tokens" in out:
        shown = Text()
        last = 0
        for tok in out["tokens"]:
            shown.append(text[last:tok["start"]])
            c = tok["contribution"]
            style = "bold green" if c > 0 else ("bold red" if c < 0 else "")
            shown.append(text[tok["start"]:tok["end"]], style=style)
            last = tok["end"]
        shown.append(text[last:])
        con.print(shown)
        for tok in sorted(out["tokens"], key=lambda t: -abs(t["contribution"]))[:10]:
            con.print(f"  {tok['token']:>20} {tok['contribution']:+.3f}")
    else:
        for f in sorted(out["features"], key=lambda f: -abs(f["contribution"])):
            colour = "green" if f["contribution"] > 0 else "red"
            con.print(f"  {f['feature']:>24} = {f['value']!s:<16} [{colour}]{f['contribution']:+.3f}[/]")


# ---------------------------------------------------------------------------- model files
@main.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the information as JSON on stdout.")
def info(model_path, as_json):
    """Format version, model type, classes, features, training size, checksum state.

    \b
    Example:
      nbayes info spam.nbm
    """
    from .io.load import load_with_state

    model, state = load_with_state(model_path)
    cli = state["meta"].get("cli") or {}
    meta = state["meta"]
    header = {"format_version": state.get("format_version"), "nbayes_version": state.get("nbayes_version"),
              "kind": state.get("kind")}
    names = getattr(model, "feature_names_in_", None)
    out = {
        "file": str(model_path),
        "format_version": header.get("format_version"),
        "written_by": header.get("nbayes_version"),
        "checksum": "verified (SHA-256)",
        "model": header.get("kind"),
        "params": {k: _short(v) for k, v in model.get_params().items() if not hasattr(v, "to_logistic")},
        "classes": [c.item() if hasattr(c, "item") else c for c in model.classes_],
        "n_features": int(getattr(model, "n_features_in_", 0)),
        "features": list(cli.get("columns") or ([str(n) for n in names] if names is not None else [])),
        "training_rows": cli.get("rows", _training_rows(meta)),
        "target": cli.get("target"),
    }
    if type(model).__name__ == "CalibratedClassifier":
        from .serve._model import calibration_info

        out["calibration"] = calibration_info(model)
    if as_json:
        _emit(out)
        return
    con = _console()
    for k, v in out.items():
        if k == "features" and len(v) > 12:
            v = v[:12] + [f"... ({len(v)} in all)"]
        con.print(f"[bold]{k:>15}[/]  {v}")


def _short(value: Any) -> Any:
    """A hyperparameter as shown by ``info``: a long mapping or list (a frozen idf of 100,000
    terms) by its size."""
    if isinstance(value, dict | list | tuple) and len(value) > 20:
        return f"<{type(value).__name__} of {len(value):,} entries>"
    return value


def _training_rows(meta: Any) -> Any:
    rows = meta.get("n_samples_seen") if isinstance(meta, dict) else None
    return int(rows) if isinstance(rows, int | float) and float(rows).is_integer() else rows


# ---------------------------------------------------------------------------- serving
@main.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(1, None), default=1, show_default=True,
              help="Worker processes, each with its own copy of the model.")
@click.option("--max-body", type=click.IntRange(1, None), default=1_000_000, show_default=True,
              help="Largest request body in bytes (413 beyond).")
@click.option("--max-batch", type=click.IntRange(1, None), default=1000, show_default=True,
              help="Most texts or rows in one request (413 beyond).")
@click.option("--max-text", type=click.IntRange(1, None), default=100_000, show_default=True,
              help="Most characters in one text (413 beyond).")
@click.option("--access-log/--no-access-log", default=False, show_default=True, help="Log every request.")
def serve(model_path, host, port, workers, max_body, max_batch, max_text, access_log):
    """Serve MODEL over HTTP: a JSON API and a web page that shows why (needs nbayes[serve]).

    \b
    POST /v1/predict   {"text": ...} / {"texts": [...]}, or {"row": {...}} / {"rows": [...]}
    POST /v1/explain   one text or row: each word's or feature's contribution
    GET  /v1/model     metadata (as nbayes info --json);  GET /healthz;  GET /openapi.json
    GET  /             the web page
    The model file is loaded again when it changes on disk, or on SIGHUP (with --workers N,
    SIGHUP to the parent restarts the workers one by one); a new file that does not load leaves
    the old model serving and is reported by /healthz.

    \b
    Example:
      nbayes serve spam.nbm --port 8000 --workers 2
    """
    try:
        import uvicorn
        from uvicorn.config import LOGGING_CONFIG

        from .serve.app import create_app
    except ImportError as exc:
        click.echo(f"nbayes: error: serve needs the web stack ({exc.name} is missing): pip install 'nbayes[serve]'", err=True)
        sys.exit(2)
    import copy

    options = {"max_body": max_body, "max_batch": max_batch, "max_text": max_text}
    log_config = copy.deepcopy(LOGGING_CONFIG)
    log_config["loggers"]["nbayes.serve"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    common = dict(host=host, port=port, log_config=log_config, access_log=access_log, timeout_graceful_shutdown=5)
    if workers == 1:
        app = create_app(model_path, **options, freeze_gc=True)  # a bad model file ends here: one line, exit 2
        loaded = app.state.holder.current
        target: Any = app
    else:
        from .serve._model import load_model

        loaded = load_model(model_path)  # check the file once before the workers start
        os.environ["NBAYES_SERVE_MODEL"] = os.path.abspath(model_path)
        os.environ["NBAYES_SERVE_LIMITS"] = json.dumps(options)
        target = "nbayes.serve.app:app_from_env"
        common.update(factory=True, workers=workers)
    click.echo(
        f"nbayes serve: {model_path} ({type(loaded.model).__name__}, {len(loaded.classes)} classes) "
        f"on http://{host}:{port}/ with {workers} worker{'s' if workers > 1 else ''}", err=True,
    )
    uvicorn.run(target, **common)


# ---------------------------------------------------------------------------- compare
@main.command()
@click.argument("data", type=click.Path())
@click.option("--target", required=True, metavar="COL")
@click.option("-o", "--output", type=click.Path(), default="nbayes-compare", show_default=True,
              help="Folder for compare.png, compare.html and compare.json.")
@click.option("--repeats", type=click.IntRange(1, None), default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--ignore", multiple=True, metavar="COL[,COL]")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON on stdout.")
def compare(data, target, output, repeats, seed, ignore, as_json):
    """Ng & Jordan's experiment: Naive Bayes against logistic regression as the training set
    grows (test error per size, with the crossover), as PNG, HTML and JSON.

    \b
    Example:
      nbayes compare pima.csv --target class -o report/
    """
    from ._cli.data import read_frame, split_target
    from .compare import compare as run_compare

    frame = read_frame(data)
    X, y, _ = split_target(frame, target, data)
    drop = [c for c in _split(ignore) if c in X.columns]
    X = X.drop(drop)
    result = run_compare(X, y, repeats=repeats, random_state=seed)
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(result.to_json())
    written = [str(out / "compare.json")]
    try:
        result.plot(out / "compare.png")
        written.append(str(out / "compare.png"))
    except ImportError:
        pass
    result.to_html(out / "compare.html")
    written.append(str(out / "compare.html"))
    if as_json:
        _emit({"crossover": result.crossover, "files": written, "table": json.loads(result.to_json())})
        return
    con = _console()
    con.print(result.to_markdown())
    con.print(f"crossover: {result.crossover}; wrote {', '.join(written)}")


@main.command()
@click.argument("data", type=click.Path())
@click.option("--target", required=True, metavar="COL", help="The label column.")
@click.option("--grid", "grid_specs", multiple=True, required=True, metavar="NAME=V1,V2,...",
              help="Values to try for one hyperparameter (repeat for more); a:b is a pair, e.g. ngram_range=1:1,1:2.")
@click.option("--model", "model_name", type=click.Choice(MODELS), default="auto", show_default=True)
@click.option("--cv", type=click.IntRange(2, None), default=5, show_default=True, help="Stratified folds (shuffled).")
@click.option("--seed", type=int, default=0, show_default=True, help="Shuffles the folds.")
@click.option("--scoring", default="accuracy", show_default=True,
              help="accuracy, balanced_accuracy, neg_log_loss, f1_macro, roc_auc, ... (scikit-learn's names).")
@_columns_option
@click.option("-o", "--output", type=click.Path(), default=None, help="Save the best model (fitted on all rows) here.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON on stdout.")
def tune(data, target, grid_specs, model_name, cv, seed, scoring, ignore, numeric_cols, categorical_cols, text_cols,
         boolean_cols, output, as_json):
    """Search hyperparameters by cross-validation and print the table, best first.

    \b
    Naive Bayes models count each fold once; every value of a setting that acts at estimation
    (alpha, fit_prior, var_smoothing, norm, min_df, ...) is then estimated from the fold
    statistics without reading the data again.

    \b
    Examples:
      nbayes tune spam.csv --target label --grid alpha=0.01,0.1,1
      nbayes tune spam.csv --target label --grid alpha=0.1,1 --grid ngram_range=1:1,1:2 -o best.nbm
    """
    from ._cli.data import choose_columns, model_input, split_target
    from ._cli.tune import parse_grid, plain
    from .model_selection import SearchCV, StratifiedKFold

    grid = parse_grid(grid_specs)
    t0 = time.perf_counter()
    frame = _read_all(data, "reading", not as_json)
    X, y, dropped = split_target(frame, target, data)
    kinds = choose_columns(X, _split(ignore), _overrides(numeric_cols, categorical_cols, text_cols, boolean_cols), data)
    model = _make_model(model_name, kinds, None, None, data)
    Xm = model_input(model, X, kinds, data)
    folds = StratifiedKFold(cv, shuffle=True, random_state=seed)
    search = SearchCV(model, grid, cv=folds, scoring=scoring).fit(Xm, y)
    rows = [{k: plain(v) for k, v in r.items()} for r in search.table()]
    result = {
        "data": str(data), "target": target, "model": type(model).__name__, "rows": int(len(y)),
        "rows_without_label": dropped, "cv": cv, "seed": seed, "scoring": scoring,
        "best_params": {k: plain(v) for k, v in search.best_params_.items()},
        "best_score": search.best_score_, "table": rows, "seconds": round(time.perf_counter() - t0, 3),
    }
    if output:
        _save(search.best_estimator_, output, {"target": target, "columns": kinds, "rows": int(len(y))})
        result["output"] = str(output)
    if as_json:
        _emit(result)
        return
    from rich.table import Table

    con = _console()
    table = Table(show_edge=False, title=f"{cv}-fold {scoring} of {type(model).__name__} on {len(y):,} rows")
    names = list(grid)
    for name in ["rank", *names, "mean", "std"]:
        table.add_column(name, justify="right" if name not in names else "left")
    for r in rows:
        style = "bold" if r["rank"] == 1 else None
        table.add_row(str(r["rank"]), *[str(r[n]) for n in names], f"{r['mean']:.4f}", f"{r['std']:.4f}", style=style)
    con.print(table)
    con.print(f"best: {result['best_params']} ({scoring} {search.best_score_:.4f}) in {result['seconds']:.2f} s"
              + (f" -> [bold]{output}[/]" if output else ""))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON on stdout.")
@click.option("--report", default="nbayes-demo-report.html", show_default=True, type=click.Path(),
              help="Where to write the HTML report ('' for none).")
def demo(as_json: bool, report: str) -> None:
    """Run the worked examples on data shipped inside the package (offline).

    \b
    PlayTennis (slides 000): MLE joint scores .0053 vs .0206, prediction No.
    House votes 1984 (UCI): missing votes left out exactly, 10-fold CV accuracy,
    an explained prediction, merge of two shards, unlearn, save and load.
    SMS spam (UCI): a text model trained, evaluated and explained word by word.
    Learning curves: Naive Bayes vs logistic regression (Ng & Jordan).
    An HTML report with the confusion matrix, coloured words and the curve.

    \b
    Example:
      nbayes demo
    """
    from .demo import run

    run(as_json=as_json, report=report or None)


if __name__ == "__main__":  # pragma: no cover
    main()
