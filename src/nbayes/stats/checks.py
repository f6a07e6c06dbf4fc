"""Shared checks of statistics: what subtraction may remove, and what no data could produce."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._scipy import sparse as sp

from .._validation import show
from ..errors import StatisticsError, UnlearnError

#: Relative slack when comparing removed weight with learned weight (and a part with the whole
#: it belongs to): float sums of the same weights in another order can differ in the last bits.
REL_TOL = 1e-9


#: names the entry ``j`` of a statistic's second axis in a refusal: ``"column 3"`` (a feature,
#: which the model names), ``"column 2, value 'red'"`` (a categorical value), ``"the term 'prize'"``
Entry = Callable[[int], str]


def _where(at: tuple[int, ...], entry: Entry | None) -> str:
    if len(at) < 2:
        return ""
    return f" ({entry(int(at[1])) if entry is not None else f'column {int(at[1])}'})"


def check_removable(have: np.ndarray, remove: np.ndarray, classes: np.ndarray, what: str,
                    entry: Entry | None = None) -> None:
    """Raise UnlearnError naming the class when ``remove`` exceeds ``have`` (first axis = class)
    and the entry (``entry``, else the column by position)."""
    excess = remove > have * (1 + REL_TOL) + REL_TOL
    if np.any(excess):
        at = tuple(np.argwhere(excess)[0])  # the first entry in excess: (class, feature, ...)
        k = int(at[0])
        where = _where(at, entry)
        raise UnlearnError(
            f"unlearn would remove more {what} of class {show(classes[k])} than the model learned"
            f"{where}: learned {float(have[at]):g}, removing {float(remove[at]):g}; the model is unchanged"
        )


def check_removed(result: Any, have: Any, remove: Any, classes: np.ndarray, what: str,
                  tail: list[Any] | None = None, entry: Entry | None = None) -> None:
    """Raise UnlearnError naming the class and the entry (``entry``, else the column by
    position) when an exact subtraction went below 0 (``result`` is the exact difference's
    leading float, negative exactly when more was removed than held).

    A negative result within rounding of what was held (``REL_TOL``) is set to 0 in place, with
    its ``tail``: the same rows counted in other batches (a fold subtracted from a total, rows
    unlearned one by one that were learned together) sum to within rounding of each other."""
    def held(at: tuple[int, ...]) -> float:
        return float(have.tocsr()[at] if sp.issparse(have) else np.broadcast_to(have, np.shape(result))[at])

    if sp.issparse(result):
        r = result
        neg = np.flatnonzero(r.data < 0)
        if len(neg) == 0:
            return
        keys: list[tuple[int, ...]] = [(int(np.searchsorted(r.indptr, i, side="right") - 1), int(r.indices[i])) for i in neg.tolist()]
    else:
        r = result
        keys = [tuple(int(i) for i in at) for at in np.argwhere(np.asarray(r) < 0)]
        if not keys:
            return
    for at in keys:
        h = held(at)
        if -float(r[at]) > REL_TOL * abs(h) + REL_TOL:
            m = remove.tocsr()[at] if sp.issparse(remove) else np.broadcast_to(remove, np.shape(result))[at]
            where = _where(at, entry)
            raise UnlearnError(
                f"unlearn would remove more {what} of class {show(classes[at[0]])} than the model learned"
                f"{where}: learned {h:.17g}, removing {float(m):.17g}; the model is unchanged"
            )
    for arr in [r, *(tail or [])]:
        _zero_at(arr, keys)
    if sp.issparse(r):
        r.eliminate_zeros()
        for t in tail or []:
            t.eliminate_zeros()


def _zero_at(arr: Any, keys: list[tuple[int, ...]]) -> None:
    """Set the entries ``keys`` of ``arr`` to 0 in place. A CSR matrix (text statistics'
    (class, term) pairs, and their tails) has only its stored entries set: an entry it does not
    store is 0 already, and storing one would change its sparsity structure."""
    if not sp.issparse(arr):
        for at in keys:
            arr[at] = 0.0
        return
    for row, col in keys:
        lo, hi = arr.indptr[row], arr.indptr[row + 1]
        hit = np.flatnonzero(arr.indices[lo:hi] == col)
        arr.data[lo + hit] = 0.0


def check_array(
    name: str, arr: Any, shape: tuple[int, ...] | None = None, *, nonnegative: bool = True
) -> np.ndarray:
    """``arr`` as a numeric array of ``shape`` whose entries are finite (and >= 0 for counts and
    weights); a StatisticsError names the array and the first bad entry otherwise."""
    a = np.asarray(arr)
    if a.dtype.kind not in "biuf":
        raise StatisticsError(f"statistics {name!r}: expected numbers, got an array of {a.dtype}")
    if shape is not None and a.shape != tuple(shape):
        raise StatisticsError(f"statistics {name!r}: expected shape {tuple(shape)}, got {a.shape}")
    bad = ~np.isfinite(a)
    if nonnegative:
        bad |= a < 0
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        what = "finite and >= 0 (a count or weight)" if nonnegative else "finite"
        raise StatisticsError(f"statistics {name!r}: entry {list(at)} is {show(a[at])}; expected {what}")
    return a


def check_at_most(part_name: str, part: np.ndarray, whole_name: str, whole: np.ndarray) -> None:
    """A part of a weight cannot exceed the whole (e.g. the weight of class-c rows where feature j
    is observed cannot exceed class c's weight)."""
    whole = np.broadcast_to(whole, part.shape)
    excess = part > whole * (1 + REL_TOL) + REL_TOL
    if excess.any():
        at = tuple(int(i) for i in np.argwhere(excess)[0])
        raise StatisticsError(
            f"statistics {part_name!r}: entry {list(at)} is {show(part[at])}, more than "
            f"{whole_name} ({show(whole[at])}), which it is a part of"
        )


def check_class_count(class_count: Any, n_classes: int | None) -> np.ndarray:
    """The per-class weights: a finite, non-negative vector of one entry per class."""
    shape = None if n_classes is None else (n_classes,)
    cc = check_array("class_count", class_count, shape)
    if cc.ndim != 1:
        raise StatisticsError(f"statistics 'class_count': expected one weight per class, got shape {cc.shape}")
    return cc


def check_shapes(arrays: dict[str, Any], shapes: dict[str, tuple[int, ...]], *, finite: bool = True) -> None:
    """A model file's arrays against the shapes their model declares in terms of its classes and
    features (e.g. ``{"coef": (K, d), "intercept": (K,)}``), and finite: a StatisticsError
    naming the array otherwise (a valid checksum is not a valid model; a wrong shape would
    surface as an IndexError or a broadcast error at predict)."""
    for name, shape in shapes.items():
        if name not in arrays:
            raise StatisticsError(f"array {name!r}: missing (expected shape {tuple(shape)})")
        a = np.asarray(arrays[name])
        if a.shape != tuple(shape):
            raise StatisticsError(f"array {name!r}: expected shape {tuple(shape)}, got {a.shape}")
        if finite and a.dtype.kind in "fc" and not np.isfinite(a).all():
            at = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
            raise StatisticsError(f"array {name!r}: entry {list(at)} is {show(a[at])}; expected a finite number")
