"""How a Naive Bayes model's errors name columns: its statistics and kernels count positions,
the user knows the input's names (issue #29: messages name columns, not indices)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

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
