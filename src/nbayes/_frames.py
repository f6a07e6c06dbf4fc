"""Results as data frames: pandas when it is installed, else polars (``library=`` to choose).

One schema for every explanation, text or table (:func:`explanation_frame`): a row per term of
each explained row, with its contribution to the log-odds of the predicted class against the
runner-up.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any, Mapping, Sequence

import numpy as np

from .errors import InvalidParameterError, MissingDependencyError

__all__ = ["EXPLANATION_COLUMNS", "explanation_frame", "frame"]

#: the columns of every explanation's frame: the explained row (0 for one document), the term
#: (a column's name, or a token as counted), its span in the text (null for a table), its
#: contribution, and the row's predicted class, runner-up and baseline (the log-odds' rest)
#: and, for a binned column, the bin its value fell in (null otherwise)
EXPLANATION_COLUMNS = ("row", "term", "start", "end", "contribution", "predicted", "runner_up", "baseline", "bin")


def frame(columns: Mapping[str, Sequence[Any]], library: str | None = None) -> Any:
    """A data frame of ``columns`` (name -> values, all as long): pandas if it is installed
    (or ``library="pandas"``), else polars (or ``library="polars"``)."""
    if library not in (None, "pandas", "polars"):
        raise InvalidParameterError(f"library must be None, 'pandas' or 'polars', got {library!r}")
    if library is None:
        library = "pandas" if find_spec("pandas") is not None else "polars"
    if find_spec(library) is None:
        raise MissingDependencyError(f"to_frame needs {library}: pip install {library}")
    if library == "pandas":
        import pandas as pd

        return pd.DataFrame({k: list(v) if not isinstance(v, np.ndarray) else v for k, v in columns.items()})
    import polars as pl

    return pl.DataFrame({k: list(v) if not isinstance(v, np.ndarray) else v for k, v in columns.items()},
                        strict=False)


def explanation_frame(rows: Sequence[tuple[Any, Any, float, Sequence[str], Sequence[tuple[int, int]] | None,
                                           np.ndarray]], library: str | None = None,
                      bins: Sequence[Sequence[str | None]] | None = None) -> Any:
    """The frame of :data:`EXPLANATION_COLUMNS` of explained rows, each given as (predicted,
    runner-up, baseline, terms, spans or None, contributions)."""
    out: dict[str, list[Any]] = {c: [] for c in EXPLANATION_COLUMNS}
    for i, (predicted, runner_up, baseline, terms, spans, contributions) in enumerate(rows):
        n = len(terms)
        out["row"] += [i] * n
        out["term"] += [str(t) for t in terms]
        out["start"] += [None] * n if spans is None else [int(s) for s, _ in spans]
        out["end"] += [None] * n if spans is None else [int(e) for _, e in spans]
        out["contribution"] += [float(c) for c in np.asarray(contributions, dtype=np.float64)]
        out["predicted"] += [_plain(predicted)] * n
        out["runner_up"] += [_plain(runner_up)] * n
        out["baseline"] += [float(baseline)] * n
        out["bin"] += [None] * n if bins is None else list(bins[i])
    if library == "polars" or (library is None and find_spec("pandas") is None):
        import polars as pl

        schema = {"row": pl.Int64, "term": pl.String, "start": pl.Int64, "end": pl.Int64,
                  "contribution": pl.Float64, "baseline": pl.Float64, "bin": pl.String}
        return frame(out, "polars").cast({k: v for k, v in schema.items()})
    df = frame(out, library)
    for c in ("start", "end"):
        df[c] = df[c].astype("Int64")  # nullable integers: a table's terms have no span
    df["bin"] = df["bin"].astype("string")  # null (<NA>) for a column that is not binned
    return df


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
