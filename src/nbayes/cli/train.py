"""``nbayes train``: read DATA in chunks, type its columns on the first, train, save."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click
import numpy as np
import polars as pl

from ..calibration import CalibratedClassifier
from ..errors import DataError
from ..evaluate import training_calibration
from ..multilabel import MultiLabel
from ..naive_bayes.binned import quantile_edges
from ..semi_supervised import EM
from ._columns import Labelled, file_rows, model_input, model_name, split_target, streams, unlabelled_rows
from ._models import choose_columns, make_model
from ._modelfile import save
from ._multilabel import label_sets
from ._options import CALIBRATION, MODELS, columns_option, na_option, overrides, parse_settings, settings_option, split
from ._output import chunks, console, emit, plain
from ._paths import check_output
from ._read import DataFile, parse_size


@click.command()
@click.argument("data", type=click.Path())
@click.option("--target", required=True, metavar="COL", help="The label column.")
@click.option("--model", "model_name_", type=click.Choice(MODELS), default="auto", show_default=True,
              help="auto: NaiveBayes over typed columns (TextClassifier for one text column).")
@click.option("--alpha", type=float, default=None, help="Smoothing of the Naive Bayes models.")
@click.option("--C", "C", type=float, default=None, help="Inverse L2 penalty (logistic, nblr).")
@click.option("-o", "--output", required=True, type=click.Path(), help="Where to write the model file.")
@settings_option
@columns_option
@na_option
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
@click.option("--chunk-bytes", "chunk_bytes", default="8M", show_default=True, metavar="SIZE",
              help="Read DATA in chunks of about this many bytes (e.g. 64M, 1G): two in memory "
                   "(the next is read while one is counted).")
@click.option("--multilabel", is_flag=True,
              help="Rows carry several labels: a JSON list in the --target column (JSON Lines, Parquet), or "
                   "a field split by --labels-sep; one-vs-rest with thresholds chosen by 5-fold F1.")
@click.option("--labels-sep", "labels_sep", default=None, metavar="SEP",
              help="With --multilabel: the separator of labels in a CSV / TSV field (such as ';').")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
def train(data: str, target: str, model_name_: str, alpha: float | None, C: float | None, output: str,
          ignore: tuple[str, ...], numeric_cols: tuple[str, ...], categorical_cols: tuple[str, ...],
          text_cols: tuple[str, ...], boolean_cols: tuple[str, ...], binned_cols: tuple[str, ...], na_values: tuple[str, ...],
          dask_address: str | None, calibrate: str | None, calibrate_ensemble: bool, unlabeled: str | None,
          semi_supervised: bool, chunk_bytes: str, multilabel: bool, labels_sep: str | None,
          as_json: bool, settings: tuple[str, ...]) -> None:
    """Train a model on DATA (CSV, TSV, Parquet, JSON Lines, or a folder per class) and save it.

    \b
    Columns are typed from the data: numbers Gaussian, strings categorical, booleans
    Bernoulli, long varied strings text (a bag of words); --numeric, --categorical, --text,
    --boolean and --ignore override. Only an empty field is a missing value (--na-values adds
    markers). Rows without a label are skipped and counted.
    The file streams in chunks of about --chunk-bytes for the Naive Bayes models.

    \b
    Examples:
      nbayes train spam.csv --target label -o spam.nbm
      nbayes train adult.csv --target income --categorical education_num -o adult.nbm
      nbayes train reviews.jsonl --target label --model nblr -o reviews.nbm
      nbayes train spam.csv --target label -o spam.nbm --calibrate isotonic
      nbayes train news.jsonl --target labels --multilabel -o news.nbm
      nbayes train news.jsonl --target label --set ngram_range=1:2 --set min_df=2 -o news.nbm
    """
    if labels_sep is not None and not multilabel:
        raise click.UsageError("--labels-sep splits label sets: give it with --multilabel")
    if multilabel and (calibrate or dask_address or unlabeled or semi_supervised):
        raise click.UsageError("--multilabel does not combine with --calibrate, --dask, --unlabeled or --semi-supervised")
    kinds_given = overrides(numeric_cols, categorical_cols, text_cols, boolean_cols, binned_cols)
    if calibrate_ensemble and not calibrate:
        raise click.UsageError("--calibrate-ensemble calibrates: give it with --calibrate [METHOD]")
    if (unlabeled or semi_supervised) and (calibrate or dask_address):
        raise click.UsageError("--unlabeled / --semi-supervised train by EM on all rows at once; "
                               "they do not combine with --calibrate or --dask")
    if dask_address and calibrate:
        raise click.UsageError("--calibrate needs all rows at once; train without --dask")
    params = parse_settings(settings, alpha=alpha, C=C)
    na = split(na_values)
    try:
        chunk_size = parse_size(chunk_bytes)
    except DataError as exc:
        raise click.BadParameter(str(exc), param_hint="--chunk-bytes") from None
    check_output(output, "the model file", inputs=[p for p in (data, unlabeled) if p])
    if dask_address:
        model, summary = _train_dask(dask_address, data, target, model_name_, alpha, C, split(ignore), kinds_given, na,
                                      params)
    else:
        source = DataFile(data, na, chunk_bytes=chunk_size)
        extra = DataFile(unlabeled, na, chunk_bytes=chunk_size) if unlabeled is not None else None
        model, summary = _train(source, target, model_name_, alpha, C, split(ignore), kinds_given, not as_json,
                                calibrate, extra, semi_supervised, calibrate_ensemble,
                                (labels_sep,) if multilabel else None, params)
    meta: dict[str, Any] = {"target": target, "columns": summary["columns"], "rows": summary["rows"]}
    if multilabel:
        meta["multilabel"] = True
        meta["labels_sep"] = labels_sep
    if na:
        meta["na_values"] = na
    save(model, output, meta)
    summary["output"] = str(output)
    if as_json:
        emit(summary)
        return
    _print_summary(summary, data, output)


def _train(source: DataFile, target: str, name: str, alpha: float | None, C: float | None, ignore: list[str],
           kinds_given: dict[str, str], show_progress: bool, calibrate: str | None = None,
           unlabeled: DataFile | None = None, semi_supervised: bool = False,
           calibrate_ensemble: bool = False, multilabel: tuple[str | None] | None = None,
           params: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """Read DATA in chunks, type its columns on the first, train; returns (model, summary).
    With ``calibrate``: all rows are held, and the model is a CalibratedClassifier (with
    ``calibrate_ensemble``: scikit-learn's ensemble design, 5 fold models and maps). With
    ``unlabeled`` (a file) or ``semi_supervised`` (DATA's rows without a label): EM."""
    t0 = time.perf_counter()
    model: Any = None
    kinds: dict[str, str] | None = None
    rows = dropped = 0
    held: list[Labelled] = []
    unlabelled: list[tuple[pl.DataFrame, np.ndarray]] = []
    em = unlabeled is not None or semi_supervised
    stream: Any = None  # the chunks a model that streams learns, counted aside until the end
    for chunk in chunks(source, "reading and training", show_progress, ahead=True):
        part = split_target(chunk.frame, target, source, chunk.start)
        dropped += part.dropped
        if kinds is None:
            kinds = choose_columns(part.X, ignore, kinds_given, source.name)
            model = make_model(name, kinds, alpha, C, source, params)
            if multilabel is not None:
                model = MultiLabel(model)
        if semi_supervised and part.dropped:
            frame = unlabelled_rows(chunk.frame, target, source)
            unlabelled.append((frame, np.setdiff1d(chunk.start + np.arange(chunk.frame.height), part.rows)))
        if len(part.y) == 0:
            continue
        rows += len(part.y)
        if streams(model) and not calibrate and not em and multilabel is None:
            stream = model.stream() if stream is None else stream
            with file_rows(source, part.rows, columns=kinds):
                stream.add(model_input(model, part.X, kinds, source, column=True), part.y)
            del chunk, part  # before the next chunk is read: one chunk in memory at a time
        else:
            held.append(part)
    if rows == 0 or kinds is None:
        raise source.fail(f"column {target!r} (the label) is missing in every row; nothing to learn")
    if stream is not None:
        stream.finish()  # the statistics made and the parameters estimated, once
    extra_source = source
    if unlabeled is not None:
        extra_source = unlabeled
        for chunk in chunks(unlabeled, "reading the unlabelled rows", show_progress):
            frame = chunk.frame.drop(target) if target in chunk.frame.columns else chunk.frame
            unlabelled.append((frame, chunk.start + np.arange(frame.height)))
    summary: dict[str, Any] = {}
    if held:
        X = pl.concat([p.X for p in held], how="vertical_relaxed")
        y = np.concatenate([p.y for p in held])
        at = np.concatenate([p.rows for p in held])
        Xm = model_input(model, X, kinds, source)
        if em:
            Xu = pl.concat([f for f, _ in unlabelled], how="vertical_relaxed") if unlabelled else X.head(0)
            at_u = np.concatenate([r for _, r in unlabelled]) if unlabelled else np.zeros(0, dtype=np.int64)
            with file_rows(source, at, unlabeled=(extra_source, at_u), columns=kinds):
                em_fit = EM(model, unlabeled_weight="auto").fit(Xm, y, X_unlabeled=model_input(model, Xu, kinds, extra_source))
            model = em_fit.estimator_  # the EM-completed model is what the file holds
            summary["semi_supervised"] = {
                "unlabelled_rows": int(len(Xu)), "source": extra_source.name,
                "em_iterations": int(em_fit.n_iter_),
                "unlabeled_weight": em_fit.unlabeled_weight_,
            }
        elif calibrate:
            with file_rows(source, at, columns=kinds):
                model, summary["calibration"] = _calibrate(model, Xm, y, calibrate, calibrate_ensemble)
        else:
            target_sets = y if multilabel is None else label_sets(y, multilabel[0], source)
            with file_rows(source, at, columns=kinds):
                model.fit(Xm, target_sets)
    out = {
        "data": source.name,
        "target": target,
        "model": model_name(model),
        "columns": dict(kinds),
        "left_out": dict(getattr(kinds, "left_out", {})),
        "rows": rows,
        "rows_without_label": 0 if semi_supervised else dropped,  # used as unlabelled rows, not skipped
        "classes": [plain(c) for c in model.classes_],
        "seconds": round(time.perf_counter() - t0, 3),
    }
    out.update(column_decisions(model, kinds))
    return model, {**out, **summary}


def column_decisions(model: Any, kinds: dict[str, str]) -> dict[str, Any]:
    """The columns as the model finally typed them (numeric ones Gaussian or binned) and its
    decisions, one per numeric column a Gaussian fits badly (``NaiveBayes(numeric="auto")``)."""
    base = getattr(model, "base_estimator_", model)  # a calibrated model: its base's columns
    final = getattr(base, "column_kinds_", None)
    if final is None or len(final) != len(kinds):
        return {}
    return {"columns": dict(zip(kinds, final)),
            "column_decisions": [plain_decision(d) for d in getattr(base, "column_decisions_", [])]}


def plain_decision(d: dict[str, Any]) -> dict[str, Any]:
    return {k: plain(v) for k, v in d.items()}


def _calibrate(model: Any, Xm: Any, y: np.ndarray, method: str, ensemble: bool) -> tuple[Any, dict[str, Any]]:
    """``model`` calibrated by ``method`` on 5-fold out-of-fold scores, and the scores before
    and after the map (:func:`nbayes.evaluate.training_calibration`)."""
    model = CalibratedClassifier(model, method=method, ensemble=ensemble).fit(Xm, y)
    return model, training_calibration(model, y)


def _train_dask(address: str, data: str, target: str, name: str, alpha: float | None, C: float | None,
                ignore: list[str], kinds_given: dict[str, str], na: list[str],
                params: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """The same training on a Dask cluster: partitions counted by the workers, merged in a tree."""
    try:
        import dask.dataframe as dd
        from distributed import Client

        from .. import dask as nbd
    except ImportError:
        raise DataError("--dask needs Dask: pip install 'nbayes[dask]'") from None
    t0 = time.perf_counter()
    lower = str(data).lower()
    with Client(address, timeout="20s"):
        if lower.endswith(".parquet") or Path(data).is_dir():
            ddf = dd.read_parquet(data)
        elif ".jsonl" in lower or ".ndjson" in lower or lower.endswith((".json", ".json.gz")):
            ddf = dd.read_json(data, lines=True, blocksize=None if lower.endswith(".gz") else 2**26)
        else:  # only an empty field (and --na-values) is missing, as without --dask
            ddf = dd.read_csv(data, sep="\t" if ".tsv" in lower else ",", blocksize=None if lower.endswith(".gz") else 2**26,
                              keep_default_na=False, na_values=["", *na])
        if target not in ddf.columns:
            raise DataError(f"{data}: no column {target!r} (the --target); columns are {list(ddf.columns)}")
        head = pl.from_pandas(ddf.head(1000, npartitions=-1))
        source = f"{data}"
        kinds = choose_columns(head.drop(target), ignore, kinds_given, source)
        model = make_model(name, kinds, alpha, C, source, params)
        ddf = ddf[list(kinds) + [target]].dropna(subset=[target])
        if "logistic" in model.capabilities:
            model = nbd.fit_logistic(model, ddf, target=target)
        elif not streams(model):
            raise DataError(f"--dask: model {model_name(model)} needs all rows at once; train it without --dask")
        else:
            if "columns" in model.capabilities:
                model.set_params(column_types=kinds)
                binned = [c for c, k in kinds.items() if k == "binned"]
                if binned:  # the partitions merge only when binned alike: edges from the first rows
                    model.set_params(bin_edges={c: quantile_edges(head.get_column(c).cast(pl.Float64).to_numpy(),
                                                                  model.bins).tolist() for c in binned})
            text = next(iter(kinds)) if model.input_kind == "text" else None
            model = nbd.fit(model, ddf, target=target, text=text)
        rows = int(ddf.shape[0].compute())
    summary = {
        "data": str(data), "target": target, "model": type(model).__name__, "columns": dict(kinds),
        "left_out": dict(kinds.left_out),
        "rows": rows, "rows_without_label": None, "dask": address,
        "classes": [plain(c) for c in model.classes_],
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return model, summary


def _print_summary(summary: dict[str, Any], data: str, output: str) -> None:
    from rich.table import Table

    con = console()
    con.print(f"columns of {data}:")
    table = Table(show_edge=False)
    table.add_column("column")
    table.add_column("treated as")
    for c, k in summary["columns"].items():
        table.add_row(str(c), k)
    for c, why in summary.get("left_out", {}).items():
        table.add_row(str(c), f"left out: {why}")
    con.print(table)
    for d in summary.get("column_decisions", []):
        con.print(f"{d['column']}: " + (f"binned ({d['bins']} bins)" if d["kind"] == "binned" else d["kind"])
                  + f": {d['reason']}", highlight=False)
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
            + f") on {c['cv']}-fold out-of-fold scores: log-loss {b['log_loss']:.4f} -> {a['log_loss']:.4f}, "
            f"ECE {b['ece']:.4f} -> {a['ece']:.4f} (the map's own fit: see nbayes evaluate for held-out figures)"
        )
