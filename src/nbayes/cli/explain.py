"""``nbayes explain``: each word's or feature's contribution to the log-odds of the prediction."""

from __future__ import annotations

import json
from typing import Any

import click
import numpy as np
import polars as pl
from rich.text import Text

from ..errors import DataError
from ..linear import LogisticRegression
from ._columns import columns_of, model_input
from ._modelfile import load
from ._output import console, emit


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path())
@click.argument("text", required=False)
@click.option("--row", default=None, metavar="JSON", help='A row of a table model, e.g. \'{"age": 40}\'.')
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON on stdout.")
def explain(model_path: str, text: str | None, row: str | None, as_json: bool) -> None:
    """Why the model predicts what it does: each word's or feature's contribution.

    \b
    Contributions are to the log-odds of the predicted class against the runner-up; with the
    baseline (prior difference) they add up to that log-odds exactly.

    \b
    Examples:
      nbayes explain spam.nbm "WIN a FREE prize now"
      nbayes explain adult.nbm --row '{"age": 40, "education": "Masters"}'
    """
    model, _, cli = load(model_path)
    model = getattr(model, "base_estimator_", model)  # calibrated: the base model explains
    if "text" in model.capabilities:
        if text is None:
            raise DataError(f"{model_path}: a text model explains a TEXT argument")
        out = _explain_text(model, text)
    else:
        if row is None:
            raise DataError(f"{model_path}: a table model explains --row JSON (one object: column -> value)")
        out = _explain_row(model, cli, row)
    if as_json:
        emit(out)
        return
    con = console()
    con.print(f"predicted [bold]{out['predicted']}[/] over {out['runner_up']} (baseline {out['baseline']:+.3f})")
    if "tokens" in out:
        assert text is not None
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


def _explain_text(model: Any, text: str) -> dict[str, Any]:
    e = model.explain(text)
    return {
        "predicted": e.predicted, "runner_up": e.runner_up, "baseline": e.baseline,
        "tokens": [{"token": t, "start": s[0], "end": s[1], "contribution": float(c)}
                   for t, s, c in zip(e.tokens, e.spans, e.contributions)],
    }


def _explain_row(model: Any, cli: dict[str, Any], row: str) -> dict[str, Any]:
    try:
        values = json.loads(row)
    except json.JSONDecodeError as exc:
        raise DataError(f"--row: not JSON ({exc.msg})") from None
    if not isinstance(values, dict):
        raise DataError("--row: expected one JSON object, column -> value")
    cols = columns_of(model, cli, pl.DataFrame([values]), None)
    absent = [c for c in cols if values.get(c) is None]
    if absent and "missing_values" not in model.capabilities:
        raise DataError(
            f"--row: no value for column {absent[0]!r}; a {type(model).__name__} needs every "
            f"feature ({', '.join(cols)}); only Naive Bayes leaves missing ones out"
        )
    frame = pl.DataFrame([{c: values.get(c) for c in cols}])
    X = model_input(model, frame, cols, "--row")
    names = list(cols)
    if isinstance(model, LogisticRegression):
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
    elif "explain" in model.capabilities:
        ex = model.explain(X)
        pred, runner, terms, base = ex.log_odds(0)
        names = ex.feature_names if hasattr(ex, "feature_names") else names
    else:
        raise DataError(f"a {type(model).__name__} has no additive explanation")
    return {
        "predicted": pred, "runner_up": runner, "baseline": float(base),
        "features": [{"feature": str(n), "value": values.get(str(n)), "contribution": float(t)}
                     for n, t in zip(names, terms)],
    }
