"""Options shared by several commands: column typing, markers of missing values."""

from __future__ import annotations

import re
from typing import Any, Callable

import click

from ..errors import InvalidParameterError

MODELS = ("auto", "categorical", "bernoulli", "multinomial", "complement", "gaussian", "logistic", "nblr")
CALIBRATION = ("temperature", "sigmoid", "isotonic")
KINDS = (("numeric", "gaussian"), ("categorical", "categorical"), ("text", "text"), ("boolean", "bernoulli"),
         ("binned", "binned"))


def columns_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--numeric/--categorical/--text/--boolean COL[,COL]`` and ``--ignore``."""
    for name, kind in KINDS:
        f = click.option(
            f"--{name}", f"{name}_cols", multiple=True, metavar="COL[,COL]",
            help=(f"Treat these columns as {name} ({kind})." if kind != "binned" else
                  "Cut these numeric columns into quantile bins, each bin a category (--set bins=N; "
                  "numeric columns a Gaussian fits badly are binned by default when that wins held-out accuracy)."),
        )(f)
    return click.option("--ignore", multiple=True, metavar="COL[,COL]", help="Leave these columns out.")(f)


def na_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--na-values V[,V]``: more markers of a missing value than the empty field."""
    return click.option(
        "--na-values", "na_values", multiple=True, metavar="V[,V]",
        help="Also read these values as missing (only an empty field is missing otherwise; "
             "NA, null, N/A, NaN, None are values).",
    )(f)


def replay_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--replay``: the updates of a learning service's log beside the model file, added."""
    return click.option(
        "--replay", is_flag=True,
        help="Add the updates of MODEL.log (left by nbayes serve MODEL --learn) that MODEL lacks (otherwise: a warning).",
    )(f)


def split(values: tuple[str, ...]) -> list[str]:
    """Repeated and comma-separated values of an option, in order."""
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def overrides(numeric_cols: tuple[str, ...], categorical_cols: tuple[str, ...], text_cols: tuple[str, ...],
              boolean_cols: tuple[str, ...], binned_cols: tuple[str, ...] = ()) -> dict[str, str]:
    """Column -> kind, from the typing options."""
    out: dict[str, str] = {}
    for cols, (_, kind) in zip((numeric_cols, categorical_cols, text_cols, boolean_cols, binned_cols), KINDS):
        for c in split(cols):
            out[c] = kind
    return out


def settings_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--set NAME=VALUE`` (repeatable): any parameter of the model, as in Python."""
    return click.option(
        "--set", "settings", multiple=True, metavar="NAME=VALUE",
        help="Set a parameter of the model (repeat for more), e.g. --set ngram_range=1:2 --set min_df=2 "
             "--set n_features=1048576 --set analyzer=char_wb; a:b is a pair, a,b a list.",
    )(f)


def parse_settings(specs: tuple[str, ...], **given: Any) -> dict[str, Any]:
    """``("ngram_range=1:2", "stop_words=english", "headers=subject,from")`` as parameters;
    ``given``: the values of dedicated options (``alpha=...``; None: not given), which --set
    must not repeat.

    >>> parse_settings(("ngram_range=1:2", "binary=true", "headers=subject,from"), alpha=0.5)
    {'ngram_range': (1, 2), 'binary': True, 'headers': ['subject', 'from']}
    """
    out: dict[str, Any] = {}
    for spec in specs:
        name, sep, text = spec.partition("=")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not text.strip():
            raise InvalidParameterError(f"--set {spec!r}: expected NAME=VALUE, e.g. --set ngram_range=1:2")
        if name in out or given.get(name) is not None:
            twice = f"--{name} and --set {name}" if given.get(name) is not None else f"--set {name}"
            raise InvalidParameterError(f"{twice}: the parameter {name!r} is given twice")
        parts = [parse_value(v.strip()) for v in text.split(",")]
        out[name] = parts[0] if len(parts) == 1 else parts
    return out


def parse_value(text: str) -> Any:
    """A value on the command line: true/false, none, integers, numbers, ``a:b`` pairs (ranges
    such as n-grams), else the string."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    if re.fullmatch(r"-?\d+:-?\d+", text):
        a, b = text.split(":")
        return (int(a), int(b))
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
