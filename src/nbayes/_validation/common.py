"""Small shared helpers of the boundary: what counts as missing, how a value is shown in a
message, where the first bad entry is."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np



def is_missing(value: Any) -> bool:
    """True for the nulls nbayes treats as missing: None, NaN, pandas.NA, NaT."""
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return bool(value != value)
    tname = type(value).__name__
    if tname in ("NAType", "NaTType"):
        return True
    if isinstance(value, np.datetime64 | np.timedelta64):
        return bool(np.isnat(value))
    return False


def show(v: Any) -> str:
    """A value as a user wrote it: 3.5, 'red', None (not np.float64(3.5))."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def first_bad(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` (row-major)."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))


#: a column given by its index in a model's message ("column 3", not "column 'age'")
_INDEX = re.compile(r"\bcolumn (\d+)\b")


def name_columns(message: str, names: Sequence[str] | None) -> str:
    """``message`` with each column given by its index (``column 3``) named as the user knows
    it (``column 'age'``), where the input had names: a model's statistics and kernels see
    positions, the boundary knows the names (issue #29: messages name columns, not indices)."""
    if not names:
        return message
    return _INDEX.sub(lambda m: f"column {names[int(m.group(1))]!r}" if int(m.group(1)) < len(names) else m.group(0),
                      message)


def _col_name(j: int, names: Sequence[str] | None) -> str:
    return f"column {names[j]!r}" if names is not None else f"column {j}"
