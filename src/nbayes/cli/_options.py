"""Options shared by several commands: column typing, markers of missing values."""

from __future__ import annotations

from typing import Any, Callable

import click

MODELS = ("auto", "categorical", "bernoulli", "multinomial", "complement", "gaussian", "logistic", "nblr")
CALIBRATION = ("temperature", "sigmoid", "isotonic")
KINDS = (("numeric", "gaussian"), ("categorical", "categorical"), ("text", "text"), ("boolean", "bernoulli"))


def columns_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--numeric/--categorical/--text/--boolean COL[,COL]`` and ``--ignore``."""
    for name, kind in KINDS:
        f = click.option(
            f"--{name}", f"{name}_cols", multiple=True, metavar="COL[,COL]",
            help=f"Treat these columns as {name} ({kind}).",
        )(f)
    return click.option("--ignore", multiple=True, metavar="COL[,COL]", help="Leave these columns out.")(f)


def na_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--na-values V[,V]``: more markers of a missing value than the empty field."""
    return click.option(
        "--na-values", "na_values", multiple=True, metavar="V[,V]",
        help="Also read these values as missing (only an empty field is missing otherwise; "
             "NA, null, N/A, NaN, None are values).",
    )(f)


def split(values: tuple[str, ...]) -> list[str]:
    """Repeated and comma-separated values of an option, in order."""
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def overrides(numeric_cols: tuple[str, ...], categorical_cols: tuple[str, ...], text_cols: tuple[str, ...],
              boolean_cols: tuple[str, ...]) -> dict[str, str]:
    """Column -> kind, from the typing options."""
    out: dict[str, str] = {}
    for cols, (_, kind) in zip((numeric_cols, categorical_cols, text_cols, boolean_cols), KINDS):
        for c in split(cols):
            out[c] = kind
    return out
