"""``nbayes tune``: the grid given on the command line, searched by cross-validation."""

from __future__ import annotations

import re
from typing import Any

from ..errors import InvalidParameterError


def parse_grid(specs: tuple[str, ...]) -> dict[str, list[Any]]:
    """``("alpha=0.01,0.1,1", "fit_prior=true,false", "ngram_range=1:1,1:2")`` as a grid.

    Values: true/false, none, integers, numbers, ``a:b`` pairs (ranges such as n-grams), else
    strings."""
    grid: dict[str, list[Any]] = {}
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not values.strip():
            raise InvalidParameterError(
                f"--grid {spec!r}: expected NAME=VALUE[,VALUE...], e.g. --grid alpha=0.01,0.1,1"
            )
        if name in grid:
            raise InvalidParameterError(f"--grid: {name!r} is given twice; list its values once")
        grid[name] = [_value(v.strip()) for v in values.split(",")]
    if not grid:
        raise InvalidParameterError("nbayes tune needs at least one --grid NAME=VALUES")
    return grid


def _value(text: str) -> Any:
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


def plain(v: Any) -> Any:
    """A value as JSON writes it (tuples as lists, numpy scalars as numbers)."""
    import numpy as np

    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple):
        return [plain(e) for e in v]
    return v
