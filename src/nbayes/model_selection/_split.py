"""Splitters: which rows each fold holds out. ``KFold`` and ``StratifiedKFold`` give exactly the
folds of scikit-learn's classes of the same names (so results compare fold for fold); any
object with scikit-learn's ``split(X, y, groups)`` protocol, or a list of (train, test) index
pairs, is accepted wherever ``cv`` is."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Iterator, TypeAlias

import numpy as np

from .._validation import classes_and_codes
from .._validation import n_rows
from ..errors import DataError, InvalidParameterError

__all__ = ["KFold", "StratifiedKFold", "check_cv"]


class _Splitter:
    def __init__(self, n_splits: int = 5, *, shuffle: bool = False, random_state: Any = None) -> None:
        if not isinstance(n_splits, numbers.Integral) or isinstance(n_splits, bool) or n_splits < 2:
            raise InvalidParameterError(f"n_splits must be an integer >= 2, got {n_splits!r}")
        if not shuffle and random_state is not None:
            raise InvalidParameterError(
                "random_state has no effect without shuffle=True; leave it None or set shuffle=True"
            )
        self.n_splits: int = int(n_splits)
        self.shuffle: bool = bool(shuffle)
        self.random_state: Any = random_state

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of folds, ``n_splits`` (X, y and groups are ignored, as in scikit-learn)."""
        return self.n_splits

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_splits={self.n_splits}, shuffle={self.shuffle}, random_state={self.random_state!r})"

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train, test)`` row indices, one pair per fold; every row is in exactly one test
        fold (``y`` is used by the stratified splitter only)."""
        n = n_rows(X)
        test_fold = self._test_folds(n, y)
        rows = np.arange(n)
        for f in range(self.n_splits):
            test = rows[test_fold == f]
            yield rows[test_fold != f], test

    def _test_folds(self, n: int, y: Any) -> np.ndarray:
        """The fold (0 .. n_splits - 1) that holds out each of the n rows."""
        raise NotImplementedError

    def _rng(self) -> np.random.RandomState:
        rs = self.random_state
        if isinstance(rs, np.random.RandomState):
            return rs
        return np.random.RandomState(rs)


class KFold(_Splitter):
    """Consecutive folds (shuffled first with ``shuffle=True``), the first ``n % n_splits``
    folds one row larger: scikit-learn's ``KFold``, fold for fold.

    >>> import numpy as np
    >>> [test.tolist() for train, test in KFold(3).split(np.zeros((7, 1)))]
    [[0, 1, 2], [3, 4], [5, 6]]
    """

    def _test_folds(self, n: int, y: Any) -> np.ndarray:
        if self.n_splits > n:
            raise DataError(f"cv: cannot split {n} rows into n_splits={self.n_splits} folds")
        order = np.arange(n)
        if self.shuffle:
            self._rng().shuffle(order)
        sizes = np.full(self.n_splits, n // self.n_splits, dtype=np.int64)
        sizes[: n % self.n_splits] += 1
        fold = np.empty(n, dtype=np.int64)
        fold[order] = np.repeat(np.arange(self.n_splits), sizes)
        return fold


class StratifiedKFold(_Splitter):
    """Folds that keep each class's share: scikit-learn's ``StratifiedKFold`` (the allocation
    of version 0.22 on), fold for fold, so a comparison with scikit-learn sees the same rows."""

    def _test_folds(self, n: int, y: Any) -> np.ndarray:
        if y is None:
            raise DataError("cv: StratifiedKFold needs the labels y")
        y = np.asarray(y)
        if len(y) != n:
            raise DataError(f"cv: y has {len(y)} labels for {n} rows")
        _, codes = classes_and_codes(y)
        # classes numbered in order of first appearance, as scikit-learn does
        first = np.full(codes.max() + 1, n, dtype=np.int64)
        np.minimum.at(first, codes, np.arange(n))
        perm = np.empty_like(first)
        perm[np.argsort(first, kind="stable")] = np.arange(len(first))
        enc = perm[codes]
        K = len(first)
        counts = np.bincount(enc, minlength=K)
        if self.n_splits > counts.max():
            raise DataError(
                f"cv: n_splits={self.n_splits} is greater than the number of rows in every class "
                f"(the largest has {counts.max()})"
            )
        if self.n_splits > counts.min():
            warnings.warn(
                f"The least populated class in y has only {counts.min()} members, which is less "
                f"than n_splits={self.n_splits}.",
                UserWarning,
                stacklevel=3,
            )
        ordered = np.sort(enc)
        allocation = np.asarray([np.bincount(ordered[i :: self.n_splits], minlength=K) for i in range(self.n_splits)])
        fold = np.empty(n, dtype=np.int64)
        rng = self._rng() if self.shuffle else None
        for k in range(K):
            folds_k = np.arange(self.n_splits).repeat(allocation[:, k])
            if rng is not None:
                rng.shuffle(folds_k)
            fold[enc == k] = folds_k
        return fold


def _leaves_one_out(cv: Any, X: Any, y: Any, groups: Any, n: int) -> bool:
    """Whether a splitter's folds are leave-one-out (scikit-learn's ``LeaveOneOut``, ``KFold(n)``
    unshuffled, any equivalent): n folds, fold i holding out row i alone. Read from the folds it
    makes, never its class, so the closed forms of leave-one-out apply to every such splitter."""
    if n < 2 or not (hasattr(cv, "split") and hasattr(cv, "get_n_splits")):
        return False
    try:
        if int(cv.get_n_splits(X, y, groups)) != n:
            return False
        for i, (train, test) in enumerate(cv.split(X, y, groups)):
            if len(test) != 1 or int(test[0]) != i or len(train) != n - 1:
                return False
    except (TypeError, ValueError):
        return False
    return True


def check_cv(cv: Any, X: Any, y: Any, groups: Any = None) -> Splits:
    """``cv`` as a list of (train rows, test rows): an int (stratified K-fold, no shuffle, as
    scikit-learn's default for classifiers), "loo" (leave-one-out), a splitter with ``split``,
    or an iterable of index pairs. Checks that every index is a row and every fold holds out
    at least one row and trains on at least one."""
    n = n_rows(X)
    if cv is None:
        cv = 5
    if isinstance(cv, str) or _leaves_one_out(cv, X, y, groups, n):
        if isinstance(cv, str) and cv != "loo":
            raise InvalidParameterError(f"cv must be an int, 'loo', a splitter or (train, test) pairs; got {cv!r}")
        if n < 2:
            raise DataError(f"cv: leave-one-out needs at least 2 rows, got {n}")
        return LeaveOneOutSplits(n)
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        splits = StratifiedKFold(int(cv)).split(X, y)
    elif hasattr(cv, "split"):
        splits = cv.split(X, y, groups)
    elif hasattr(cv, "__iter__"):
        splits = iter(cv)
    else:
        raise InvalidParameterError(
            f"cv must be an int, 'loo', a splitter (with split(X, y, groups)) or (train, test) pairs; "
            f"got {type(cv).__name__}"
        )
    out = []
    for i, pair in enumerate(splits):
        try:
            train, test = pair
        except (TypeError, ValueError):
            raise InvalidParameterError(f"cv: split {i} is not a (train, test) pair") from None
        train, test = _indices(train, n, i, "train"), _indices(test, n, i, "test")
        if len(test) == 0:
            raise DataError(f"cv: split {i} holds out no rows (an empty test fold)")
        if len(train) == 0:
            raise DataError(f"cv: split {i} trains on no rows (an empty training fold)")
        out.append((train, test))
    if not out:
        raise DataError("cv: the splitter gave no splits")
    return out


class LeaveOneOutSplits:
    """The n leave-one-out splits, made on demand (a list of them would hold n^2 indices)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        if not -self.n <= i < self.n:
            raise IndexError(i)
        i %= self.n
        rows = np.arange(self.n)
        return np.delete(rows, i), rows[i : i + 1]

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        return (self[i] for i in range(self.n))


#: what :func:`check_cv` gives: (train rows, test rows) pairs, leave-one-out's made on demand
Splits: TypeAlias = "list[tuple[np.ndarray, np.ndarray]] | LeaveOneOutSplits"


def _indices(idx: Any, n: int, i: int, what: str) -> np.ndarray:
    a = np.asarray(idx)
    if a.dtype == bool:
        if len(a) != n:
            raise DataError(f"cv: split {i}'s {what} mask has {len(a)} entries for {n} rows")
        return np.flatnonzero(a)
    if a.size and a.dtype.kind not in "iu":
        raise DataError(f"cv: split {i}'s {what} indices must be integers, got {a.dtype}")
    a = a.astype(np.int64).ravel()
    if a.size and (a.min() < 0 or a.max() >= n):
        raise DataError(f"cv: split {i}'s {what} indices must be rows 0..{n - 1}, got {a.min()}..{a.max()}")
    return a
