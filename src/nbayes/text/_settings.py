"""What turns documents into terms, shared by TextClassifier and Vectorizer."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_number
from ..errors import DataError, InvalidParameterError
from ..stats.text import TextStats
from ._buffer import to_buffer
from ._vocab import Tokens
from .stop_words import ENGLISH_STOP_WORDS


@dataclass
class _Docs:
    """A batch of documents as the kernels take it."""

    buf: np.ndarray
    bounds: np.ndarray
    table: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.bounds) - 1, 1)


class TextSettings:
    """Tokens (lowercase, n-grams, stop words), term selection (min_df, max_df, max_features,
    hashing) and tf-idf weights, as scikit-learn's vectorisers define them. Expects the
    attributes of those names on the instance."""

    def _check_text_params(self) -> None:
        for name in ("min_df", "max_df"):
            value = getattr(self, name)
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                check_number(name, value, low=0, integer=True)
            else:
                check_number(name, value, low=0.0, high=1.0)
        check_number("max_features", self.max_features, low=1, integer=True, allow_none=True)
        check_number("n_features", self.n_features, low=1, high=2**31 - 1, integer=True, allow_none=True)
        self._how()  # checks ngram_range and stop_words
        if self.tfidf and (self.n_features is not None or self.binary):
            raise InvalidParameterError("tfidf=True weighs counts: it takes vocabulary mode, without binary")

    def _how(self) -> Tokens:
        """The tokens-to-terms settings, checked: n-gram range and stop words."""
        rng = self.ngram_range
        if isinstance(rng, np.ndarray):  # as a model file gives it back
            rng = tuple(rng.tolist())
        if (not isinstance(rng, tuple | list) or len(rng) != 2
                or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in rng)
                or not 1 <= rng[0] <= rng[1] <= 8):
            raise InvalidParameterError(
                f"parameter 'ngram_range' must be (min_n, max_n) with 1 <= min_n <= max_n <= 8, got {rng!r}"
            )
        stop = self.stop_words
        if stop == "english":
            words = ENGLISH_STOP_WORDS
        elif stop is None:
            words = None
        elif isinstance(stop, str) or not all(isinstance(v, str) for v in list(stop)):
            raise InvalidParameterError(
                f"parameter 'stop_words' must be None, 'english' or a list of words, got {stop!r}"
            )
        else:
            words = [w.lower() if self.lowercase else w for w in list(stop)]
        return Tokens(tuple(rng), words)

    def _prepare_X(self, X: Any, fitting: bool):
        buf, bounds, table = to_buffer(X, lowercase=self.lowercase)
        return _Docs(buf, bounds, table), None

    def _idf(self, stats: TextStats, keep: np.ndarray) -> np.ndarray:
        """scikit-learn's idf over the kept terms: ln((1 + n) / (1 + df)) + 1 (smooth_idf) or
        ln(n / df) + 1."""
        n, df = stats.n_docs, stats.df[keep]
        if self.smooth_idf:
            return np.log((1.0 + n) / (1.0 + df)) + 1.0
        return np.log(n / df) + 1.0

    def _weigh(self, X: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
        """Counts to tf-idf rows of unit L2 norm (TfidfVectorizer with norm='l2')."""
        X = X.astype(np.float64)
        if self.sublinear_tf:
            X.data = 1.0 + np.log(X.data)
        X.data *= idf[X.indices]
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        X.data /= np.where(norms[rows] > 0, norms[rows], 1.0)
        return X

    def _active(self, stats: TextStats) -> np.ndarray:
        """The terms a vectoriser fitted on these documents would keep (scikit-learn's rules)."""
        n = stats.n_docs
        hi = self.max_df if isinstance(self.max_df, numbers.Integral) else self.max_df * n
        lo = self.min_df if isinstance(self.min_df, numbers.Integral) else self.min_df * n
        if hi < lo:
            raise InvalidParameterError("max_df corresponds to fewer documents than min_df")
        if self.n_features is not None and (self.min_df, self.max_df, self.max_features) == (1, 1.0, None):
            # hashing mode, as HashingVectorizer: every bucket is a column, empty or not
            return np.ones(len(stats.df), dtype=bool)
        keep = (stats.df > 0) & (stats.df >= lo) & (stats.df <= hi)
        if self.max_features is not None and keep.sum() > self.max_features:
            idx = np.flatnonzero(keep)
            order = np.argsort(-stats.tf[idx], kind="stable")[: self.max_features]
            keep = np.zeros_like(keep)
            keep[idx[order]] = True
        if not keep.any():
            raise DataError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
        return keep

    @staticmethod
    def _counts(table: Any, docs: _Docs, binary: bool) -> sp.csr_matrix:
        tok = table.tokens(docs.buf, docs.bounds, docs.table)
        tok = tok[tok[:, 1] >= 0]
        X = sp.csr_matrix(
            (np.ones(len(tok)), (tok[:, 0], tok[:, 1])), shape=(docs.shape[0], len(table))
        )
        X.sum_duplicates()
        if binary:
            X.data[:] = 1.0
        return X
