"""The models the command line builds (``train``, ``evaluate --cv``, ``tune``): the columns'
kinds chosen from a frame, and the estimator for ``--model``. Only the commands that build a
model import this module (and with it every model class); the others read a model file."""

from __future__ import annotations

from typing import Any, Callable

import polars as pl

from ..errors import DataError, InvalidParameterError
from ..linear import LogisticRegression
from ..naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB
from ..naive_bayes.mixed import NaiveBayes
from ..text import TextClassifier
from ._columns import Columns, identifier_reason, model_name, short_text

TEXT_KINDS = ("multinomial", "complement", "bernoulli", "nblr")


def choose_columns(frame: pl.DataFrame, ignore: list[str], overrides: dict[str, str], source: str) -> Columns:
    """Column -> kind (gaussian / categorical / bernoulli / text), the dtype's choice unless
    overridden on the command line (``source``: the file, for messages). Among columns no
    override names, short distinct free text is text (:func:`short_text`) and an
    identifier-like column (:func:`identifier_reason`) is left out, with the reason in the
    result's ``left_out``."""
    for name in list(ignore) + list(overrides):
        if name not in frame.columns:
            raise DataError(f"{source}: no column {name!r}; columns are {frame.columns}")
    cols = [c for c in frame.columns if c not in ignore]
    if not cols:
        raise DataError(f"{source}: no feature columns left (all ignored or only the target)")
    kinds = NaiveBayes().infer_column_kinds(frame.select(cols))
    chosen: dict[str, str] = {}
    left_out: dict[str, str] = {}
    for c, k in zip(cols, kinds):
        if c not in overrides and short_text(frame.get_column(c), k):
            k = "text"
        reason = None if c in overrides else identifier_reason(frame.get_column(c), k)
        if reason is None:
            chosen[c] = overrides.get(c, k)
        else:
            left_out[c] = f"{reason} (--categorical {c} keeps it)"
    if not chosen:
        raise DataError(
            f"{source}: no feature columns left: {', '.join(f'{c!r} is {r}' for c, r in left_out.items())}"
        )
    return Columns(chosen, left_out, set(overrides))


def make_model(name: str, kinds: dict[str, str], alpha: float | None, C: float | None, source: Any,
               params: dict[str, Any] | None = None) -> Any:
    """The estimator for ``--model`` over the typed columns, with the ``--set`` ``params``."""
    model = _model(name, kinds, alpha, C, source)
    if params:
        valid = model.get_params(deep=False)
        for key in params:
            if key not in valid:
                raise InvalidParameterError(
                    f"--set {key}: {model_name(model)} has no parameter {key!r}; "
                    f"its parameters: {', '.join(sorted(valid))}")
        model.set_params(**params)
    return model


def _model(name: str, kinds: dict[str, str], alpha: float | None, C: float | None, source: Any) -> Any:
    texts = [c for c, k in kinds.items() if k == "text"]
    single_text = len(kinds) == 1 and len(texts) == 1
    a: dict[str, Any] = {} if alpha is None else {"alpha": alpha}
    c: dict[str, Any] = {} if C is None else {"C": C}
    if name == "auto":
        if single_text:
            return TextClassifier(**a)
        # numeric columns the command line did not name are the model's to decide (Gaussian or
        # bins, numeric="auto"); a --numeric column stays Gaussian
        named = getattr(kinds, "named", set(kinds))
        given = {c: k for c, k in kinds.items() if k != "gaussian" or c in named}
        return NaiveBayes(column_types=given, numeric="auto", **a)
    if name in TEXT_KINDS and single_text:
        return TextClassifier(model=name, **a, **(c if name == "nblr" else {}))
    if name == "nblr":
        raise DataError(f"{source}: --model nblr takes one text column (found columns {list(kinds)})")
    if texts:
        raise DataError(
            f"{source}: column {texts[0]!r} is text; --model {name} takes one text column alone or "
            "no text (use --model auto, or --ignore / --categorical the column)"
        )
    makers: dict[str, Callable[[], object]] = {
        "categorical": lambda: CategoricalNB(**a),
        "bernoulli": lambda: BernoulliNB(**a),
        "multinomial": lambda: MultinomialNB(**a),
        "complement": lambda: ComplementNB(**a),
        "gaussian": lambda: GaussianNB(),
        "logistic": lambda: LogisticRegression(**c),
    }
    return makers[name]()
