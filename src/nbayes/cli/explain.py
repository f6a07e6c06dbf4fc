"""``nbayes explain``: each word's or feature's contribution to the log-odds of the prediction."""

from __future__ import annotations

from typing import Any

import click
import numpy as np
import polars as pl
from rich.text import Text

from ..errors import DataError
from ._columns import columns_of, file_rows, model_input
from ._inline import InlineRows, inputs_options, read_inputs
from ._modelfile import load
from ._options import na_option, split
from ._output import chunks, console, emit, plain


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@inputs_options
@na_option
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON on stdout.")
def explain(model_path: str, data: str | None, texts: tuple[str, ...], rows: tuple[str, ...],
            na_values: tuple[str, ...], as_json: bool) -> None:
    """Why the model predicts what it does: each word's or feature's contribution.

    \b
    Contributions are to the log-odds of the predicted class against the runner-up; with the
    baseline (prior difference) they add up to that log-odds exactly. The probability is the
    model's P(predicted class | row).

    \b
    The rows are those predict reads: a file DATA, or --text TEXT (a text model; a TEXT
    argument in place of DATA too) or --row JSON (a table model), each repeatable. --json
    prints one object for one row, a list for several.

    \b
    Examples:
      nbayes explain spam.nbm "WIN a FREE prize now"
      nbayes explain spam.nbm --text "WIN a FREE prize now" --text "see you at lunch"
      nbayes explain adult.nbm --row '{"age": 40, "education": "Masters"}'
      nbayes explain adult.nbm new.csv --json
    """
    loaded, _, cli = load(model_path)
    source = read_inputs(loaded, cli, model_path, data, texts, rows, split(na_values) or cli.get("na_values") or ())
    model = getattr(loaded, "base_estimator_", loaded)  # calibrated: the base model explains
    if isinstance(source, InlineRows):
        source.complete(columns_of(model, cli, source.frame, None), loaded)
    out: list[dict[str, Any]] = []
    cols = None
    for chunk in chunks(source, "explaining"):
        if cols is None:
            cols = columns_of(model, cli, chunk.frame, None)
        with file_rows(source, chunk.start + np.arange(chunk.frame.height), columns=cols):
            out.extend(_explain_chunk(model, loaded, chunk.frame, cols, source))
    if as_json:
        emit(out[0] if len(out) == 1 else out)
        return
    con = console()
    for i, one in enumerate(out):
        if len(out) > 1:
            con.print(("" if i == 0 else "\n") + f"[bold]{source.where(i) if isinstance(source, InlineRows) else f'row {i + 1}'}[/]")
        _show(con, one)


def _explain_chunk(model: Any, loaded: Any, frame: pl.DataFrame, cols: dict[str, str], source: Any) -> list[dict[str, Any]]:
    """The explanations of a chunk's rows, each with its probability (the loaded model's: a
    calibrated model's own, ``calibrated_probability``, besides its base model's)."""
    X = model_input(model, frame, cols, source)
    if model.input_kind == "text":
        out = [_explain_text(model, t) for t in X]
    else:
        values = frame.select(list(cols)).to_dicts()
        out = _explain_rows(model, X, list(cols), values)
    P = np.asarray(model.predict_proba(X), dtype=np.float64)
    Pc = np.asarray(loaded.predict_proba(X), dtype=np.float64) if loaded is not model else None
    for i, one in enumerate(out):
        k = _column(model.classes_, one["predicted"])
        one["probability"] = float(P[i, k])
        if Pc is not None:
            one["calibrated_probability"] = float(Pc[i, _column(loaded.classes_, one["predicted"])])
    return out


def _column(classes: Any, label: Any) -> int:
    return int(next(j for j, c in enumerate(classes.tolist()) if c == label))


def _show(con: Any, out: dict[str, Any]) -> None:
    p = f"P = {out['probability']:.3f}"
    if "calibrated_probability" in out:
        p = f"P = {out['calibrated_probability']:.3f} calibrated, {out['probability']:.3f} before calibration"
    con.print(f"predicted [bold]{out['predicted']}[/] ({p}) over {out['runner_up']} (baseline {out['baseline']:+.3f})")
    if "tokens" in out:
        text = out["text"]
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
        rows = sorted(out["features"], key=lambda f: -abs(f["contribution"]))
        values = [f"{f['value']!s} in {f['bin']}" if "bin" in f else f"{f['value']!s}" for f in rows]
        width = max([16, *map(len, values)])  # a binned value's bin widens the column for every row
        for f, value in zip(rows, values):
            colour = "green" if f["contribution"] > 0 else "red"
            con.print(f"  {f['feature']:>24} = {value:<{width}} [{colour}]{f['contribution']:+.3f}[/]", highlight=False)


def _explain_text(model: Any, text: str) -> dict[str, Any]:
    e = model.explain(text)
    return {
        "predicted": plain(e.predicted), "runner_up": plain(e.runner_up), "baseline": float(e.baseline), "text": text,
        "tokens": [{"token": t, "start": s[0], "end": s[1], "contribution": float(c)}
                   for t, s, c in zip(e.tokens, e.spans, e.contributions)],
    }


def _explain_rows(model: Any, X: Any, names: list[str], values: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per row: the predicted class, the runner-up, the baseline and each feature's term."""
    if "explain" not in model.capabilities:
        raise DataError(f"a {type(model).__name__} has no additive explanation")
    with np.errstate(over="ignore", invalid="ignore"):
        ex = model.explain(X)
        rows = [ex.log_odds(i) for i in range(len(values))]
    if model.input_feature_names() is not None:  # the model's own names (a frame's columns)
        names = list(ex.feature_names or names)
    bins = ex.bins or [[None] * len(names) for _ in values]
    return [{
        "predicted": plain(pred), "runner_up": plain(runner), "baseline": float(base),
        "features": [{"feature": str(n), "value": row.get(str(n)), **({"bin": b} if b is not None else {}),
                      "contribution": float(t)}
                     for n, t, b in zip(names, terms, bins_i)],
    } for (pred, runner, terms, base), row, bins_i in zip(rows, values, bins)]
