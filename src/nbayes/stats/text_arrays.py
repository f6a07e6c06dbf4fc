"""Text statistics as arrays: classes x terms counts as canonical CSR matrices (the entries of
one pattern, the values of one at another's entries) and their encoding in a model file (whole
counts in the smallest unsigned type, the vocabulary as one UTF-8 buffer)."""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..errors import StatisticsError
from .terms import CodeTerms

__all__ = ["csr", "csr_from", "drop_zeros", "values_at", "union_pattern", "compact", "encode_terms", "decode_terms"]

Counts = Any  # dense array or CSR matrix (classes x terms)


def csr(a: Counts) -> sp.csr_matrix:
    """CSR classes x terms in canonical form (sorted, no duplicates), float64."""
    m = a.tocsr() if sp.issparse(a) else sp.csr_matrix(np.asarray(a, dtype=float))
    if m.dtype != np.float64:
        m = m.astype(np.float64)
    if not m.has_canonical_format:
        m = m.copy()
        m.sum_duplicates()
    return m


def csr_from(data: np.ndarray, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """A CSR matrix of ``shape`` from (row, column, value) triples, duplicates summed."""
    m = sp.csr_matrix((np.asarray(data, dtype=float), (rows, cols)), shape=shape)
    m.sum_duplicates()
    return m


def drop_zeros(m: sp.csr_matrix) -> sp.csr_matrix:
    """``m`` without its explicit zeros (in place), returned."""
    m.eliminate_zeros()
    return m


def _keys(m: sp.csr_matrix) -> np.ndarray:
    """Each stored entry's row * n_columns + column: sorted for a canonical CSR matrix."""
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
    keys: np.ndarray = rows * np.int64(m.shape[1]) + m.indices.astype(np.int64)
    return keys


def values_at(m: sp.csr_matrix, pattern: sp.csr_matrix) -> np.ndarray:
    """m's values at the stored entries of ``pattern`` (0 where m stores none)."""
    if m is pattern or (m.nnz == pattern.nnz and np.array_equal(m.indptr, pattern.indptr)
                        and np.array_equal(m.indices, pattern.indices)):
        return np.asarray(m.data, dtype=np.float64)  # the same entries (the counts of one counting)
    have, want = _keys(m), _keys(pattern)
    out = np.zeros(len(want))
    if len(have) == 0:
        return out
    at = np.minimum(np.searchsorted(have, want), len(have) - 1)
    hit = have[at] == want
    out[hit] = m.data[at[hit]]
    return out


def union_pattern(a: sp.csr_matrix, b: sp.csr_matrix) -> sp.csr_matrix:
    """The entries stored in a or b (canonical CSR with values 1)."""
    if a.nnz == b.nnz and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices):
        return a
    u = csr(abs(a) + abs(b))
    return u


# ----------------------------------------------------------------------------- file encoding
def compact(a: np.ndarray) -> np.ndarray:
    """Whole non-negative numbers in the smallest unsigned type that holds them exactly (most
    counts are unweighted); anything else as it is."""
    a = np.asarray(a)
    if a.size == 0 or a.dtype.kind != "f" or not np.all(np.isfinite(a)) or a.min() < 0 or np.any(a != np.round(a)):
        return a
    top = a.max()
    for dt in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dt).max:
            return a.astype(dt)
    return a


def encode_terms(terms: np.ndarray) -> dict[str, np.ndarray]:
    """A vocabulary as one UTF-8 buffer and each term's length in code points."""
    listed = terms.tolist()
    lengths = np.fromiter(map(len, listed), dtype=np.int64, count=len(listed))
    blob = "".join(listed).encode("utf-8", errors="surrogatepass")
    return {"stats/terms_utf8": np.frombuffer(blob, dtype=np.uint8), "stats/terms_len": compact(lengths.astype(float))}


def decode_terms(arrays: dict[str, np.ndarray]) -> CodeTerms:
    """A file's vocabulary (``stats/terms_utf8``, ``stats/terms_len``) as code points: its
    Python strings are made only if read."""
    try:
        return CodeTerms.from_utf8(arrays["stats/terms_utf8"], arrays["stats/terms_len"])
    except UnicodeDecodeError as exc:
        raise StatisticsError(f"statistics 'terms': not UTF-8 ({exc})") from None
    except ValueError:
        raise StatisticsError("statistics 'terms': the term lengths do not add up to the vocabulary's text") from None
