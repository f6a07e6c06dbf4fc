"""What a Naive Bayes model's messages and explanations show of its columns: its statistics and
kernels count positions, the user knows the input's names (issue #29: messages name columns,
not indices), and a binned column's bin, not only its value."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .._validation import name_columns
from ..errors import DataError, NBayesError, UnlearnError


class Naming:
    """``error_columns`` (a hook), ``located`` and ``naming`` for :class:`BaseNB`."""

    if TYPE_CHECKING:  # pragma: no cover - the estimator's (nbayes._estimator)
        def input_feature_names(self) -> list[str] | None: ...

    def error_columns(self, part: str | None, names: list[str] | None) -> list[str] | None:
        """Hook: the names of the columns a message of the statistics counts by position
        (``part``: the kind of the statistics that raised it, for a model of several; ``names``:
        the input's, when it had names), or None to leave the positions."""
        return None if part is not None else (names or self.input_feature_names())

    def located(self, exc: NBayesError, names: list[str] | None = None) -> NBayesError:
        """``exc``, an error about this model's input or statistics, with every column its
        message gives by position (``column 3``) named as the input named it (``column 'age'``):
        the statistics and kernels see positions, the user knows names (issue #29)."""
        cols = self.error_columns(getattr(exc, "part", None), names)
        message = name_columns(str(exc), cols)
        return exc if message == str(exc) else type(exc)(message)

    @contextmanager
    def naming(self, names: list[str] | None = None) -> Iterator[None]:
        """Errors of the block, :meth:`located`."""
        try:
            yield
        except (DataError, UnlearnError) as exc:
            new = self.located(exc, names)
            if new is exc:
                raise
            raise new from None

    def feature_bins(self, Xv: Any) -> list[list[str | None]] | None:
        """Hook: per row and feature, the bin a binned column's value fell in, for ``explain``
        (None: no binned column)."""
        return None


class MixedNaming(Naming):
    """:class:`NaiveBayes`' columns: each part's statistics count the columns of its kind."""

    if TYPE_CHECKING:  # pragma: no cover - NaiveBayes'
        column_kinds_: list[str]
        components_: dict[str, Any]

    def error_columns(self, part: str | None, names: list[str] | None) -> list[str] | None:
        """A part's statistics count its own columns: position j of part ``part`` is the j-th
        column of that kind (named, or ``x5`` for a matrix). Messages of the whole model name
        columns already."""
        kinds = self.__dict__.get("_pending_kinds") or self.__dict__.get("column_kinds_")
        if part is None or kinds is None:
            return None
        shown = names or self.input_feature_names() or [f"x{j}" for j in range(len(kinds))]
        return [shown[j] for j, k in enumerate(kinds) if k == part]

    def feature_bins(self, Xv: Any) -> list[list[str | None]] | None:
        out: list[list[str | None]] | None = None
        for kind, comp in self.components_.items():
            got = comp.feature_bins(Xv.parts[kind]) if hasattr(comp, "feature_bins") else None
            if got is None:
                continue
            out = out or [[None] * Xv.shape[1] for _ in range(Xv.shape[0])]
            idx = [j for j, k in enumerate(self.column_kinds_) if k == kind]
            for row, part in zip(out, got):
                for j, b in zip(idx, part):
                    row[j] = b
        return out
