"""Hypothesis strategies for the laws: datasets of every kind and ways to cut them in chunks.

>>> from hypothesis import given, settings
>>> from nbayes.testing.strategies import datasets
>>> @settings(max_examples=3, database=None)
... @given(datasets("counts"))
... def sizes(data):
...     assert data.n_rows >= 12 and data.kind == "counts"
>>> sizes()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import MissingDependencyError
from .data import KINDS, Dataset

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - hypothesis is in the test extra
    raise MissingDependencyError("nbayes.testing.strategies needs hypothesis: pip install hypothesis") from exc

__all__ = ["chunkings", "datasets"]


def datasets(kind: str, *, min_rows: int = 12, max_rows: int = 80, missing: float = 0.0) -> Any:
    """Datasets of ``kind`` (one of :data:`~nbayes.testing.data.KINDS`): a drawn seed and
    number of rows; every class has rows (``min_rows`` >= 12)."""
    make = KINDS[kind]
    return st.builds(lambda seed, n: make(seed, n, missing),
                     st.integers(0, 2**31 - 1), st.integers(max(12, min_rows), max(12, min_rows, max_rows)))


@st.composite
def chunkings(draw: Any, data: Dataset, max_chunks: int = 6) -> list[np.ndarray]:
    """Row indices of consecutive chunks over a drawn order of the rows (chunks may hold one
    class or bring a new one; none is empty: see ``law_empty_chunk_changes_nothing``)."""
    n = data.n_rows
    order = np.array(draw(st.permutations(range(n))), dtype=np.intp)
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=max_chunks - 1))))
    return [part for part in np.split(order, cuts) if len(part)]
