"""What turns documents into terms, shared by TextClassifier and Vectorizer."""

from __future__ import annotations

import numbers
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_choice, check_number
from ..errors import InvalidParameterError
from ..stats.text import TextStats
from ._buffer import check_documents, to_buffer, to_char_buffer
from ._headers import header_fields, without_headers
from .vocab import Tokens, _objects
from .stop_words import ENGLISH_STOP_WORDS


#: what a document's terms are made of: word n-grams, character n-grams, character n-grams
#: within words (scikit-learn's analyzers of those names)
ANALYZERS = ("word", "char", "char_wb")


@dataclass
class Docs:
    """A batch of documents as the kernels take it."""

    buf: np.ndarray
    bounds: np.ndarray
    table: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.bounds) - 1, 1)


class TextSettings:
    """Tokens (mail / news headers, lowercase, analyzer, n-grams, stop words), term selection (min_df, max_df, max_features,
    hashing) and tf-idf weights, learned or frozen (``idf``, a mapping term -> weight), as
    scikit-learn's vectorisers define them. Expects the attributes of those names on the
    instance (``idf`` optional)."""

    # the settings read here: the constructor of the class that mixes this in sets them
    headers: Any
    lowercase: bool
    binary: bool
    min_df: float
    max_df: float
    max_features: int | None
    n_features: int | None
    ngram_range: tuple[int, int]
    stop_words: Any
    analyzer: str
    tfidf: bool
    sublinear_tf: bool
    smooth_idf: bool
    use_idf: bool

    def _check_text_params(self) -> None:
        for name in ("min_df", "max_df"):
            value = getattr(self, name)
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                check_number(name, value, low=0, integer=True)
            else:
                check_number(name, value, low=0.0, high=1.0)
        ints = [isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in (self.min_df, self.max_df)]
        if all(ints) and self.max_df < self.min_df:
            raise InvalidParameterError(
                f"max_df={self.max_df!r} documents is fewer than min_df={self.min_df!r}: no term could be kept"
            )
        header_fields(self.headers)
        check_number("max_features", self.max_features, low=1, integer=True, allow_none=True)
        check_number("n_features", self.n_features, low=1, high=2**31 - 1, integer=True, allow_none=True)
        self._how()  # checks ngram_range and stop_words
        if self.tfidf and self.n_features is not None:
            raise InvalidParameterError(
                "tfidf=True weighs the terms of a vocabulary: it takes vocabulary mode (n_features=None)"
            )
        use_idf = getattr(self, "use_idf", True)
        if not isinstance(use_idf, bool | np.bool_):
            raise InvalidParameterError(f"parameter 'use_idf' must be True or False, got {use_idf!r}")
        if self._frozen_idf() is not None:
            if not self.tfidf:
                raise InvalidParameterError("idf=... is the frozen idf of a tf-idf model: it takes tfidf=True")
            if not use_idf:
                raise InvalidParameterError(
                    "idf=... gives idf weights and use_idf=False uses none: leave use_idf=True with a frozen idf "
                    "(a frozen idf of ones streams a model without idf)"
                )
            if (self.min_df, self.max_df, self.max_features) != (1, 1.0, None):
                raise InvalidParameterError(
                    "idf=... freezes the vocabulary (its terms) with the weights; min_df, max_df and "
                    "max_features select terms when an idf is learned: leave them at their defaults"
                )

    def _how(self) -> Tokens:
        """The tokens-to-terms settings, checked: analyzer, n-gram range and stop words."""
        analyzer = getattr(self, "analyzer", "word")
        check_choice("analyzer", analyzer, ANALYZERS)
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
        if analyzer != "word" and stop is not None:
            # scikit-learn warns and ignores them; a setting that silently does nothing is refused
            raise InvalidParameterError(
                f"parameter 'stop_words' applies to words: analyzer={analyzer!r} forms character "
                f"n-grams and would ignore it; leave stop_words=None (got {stop!r})"
            )
        words: Collection[str] | None
        if isinstance(stop, str) and stop == "english":  # (a list read back from a file is an array)
            words = ENGLISH_STOP_WORDS
        elif stop is None:
            words = None
        elif isinstance(stop, str) or not all(isinstance(v, str) for v in list(stop)):
            raise InvalidParameterError(
                f"parameter 'stop_words' must be None, 'english' or a list of words, got {stop!r}"
            )
        else:
            words = [w.lower() if self.lowercase else w for w in list(stop)]
        return Tokens((int(rng[0]), int(rng[1])), words, analyzer)

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        """``(docs, None)``: the texts tokenised into one buffer (lower-cased when ``lowercase``);
        for a character analyzer joined without separators, with the whitespace table. With
        ``headers`` (a list of field names), each document's e-mail / news header section is
        blanked but for those fields' values first (:mod:`nbayes.text._headers`)."""
        check_documents(X)
        keep = header_fields(self.headers)
        if keep is not None:
            X = without_headers(X, keep)
        if getattr(self, "analyzer", "word") != "word":
            buf, bounds, table = to_char_buffer(X, lowercase=self.lowercase)
            return Docs(buf, bounds, table), None
        buf, bounds, table = to_buffer(X, lowercase=self.lowercase)
        return Docs(buf, bounds, table), None

    def _frozen_idf(self) -> tuple[np.ndarray, np.ndarray, Any] | None:
        """The frozen idf ``idf`` (a mapping term -> weight), checked, as (terms sorted, weights,
        their lookup table or None); None when the idf is learned (``idf=None``)."""
        idf = getattr(self, "idf", None)
        if idf is None:
            return None
        if not isinstance(idf, Mapping) or len(idf) == 0:
            raise InvalidParameterError(
                f"parameter 'idf' must be None or a non-empty mapping term -> idf weight (such as a "
                f"fitted tf-idf model's idf_), got {type(idf).__name__}"
            )
        fitted = getattr(self, "_idf_weights", None)
        terms = getattr(self, "_terms", None)
        if fitted is not None and terms is not None and len(terms) == len(idf):
            # the idf this model was fitted with, as arrays: confirm without sorting again
            try:
                same = np.array_equal(np.array([idf[t] for t in terms.tolist()], dtype=np.float64), fitted)
            except (KeyError, TypeError, ValueError):
                same = False
            if same:
                table = getattr(self, "_table", None)
                if getattr(getattr(table, "how", None), "key", None) != self._how().key:
                    table = None  # built for other n-grams or stop words: build it again
                return terms, fitted, table
        keys = list(idf)
        if not all(isinstance(t, str) for t in keys):
            bad = next(t for t in keys if not isinstance(t, str))
            raise InvalidParameterError(f"parameter 'idf': terms must be str, got {bad!r}")
        keys.sort()
        raw = [idf[t] for t in keys]
        numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw)
        values = np.array(raw, dtype=np.float64) if numeric else np.array([np.nan])
        if not np.all(np.isfinite(values)) or np.any(values < 0):
            raise InvalidParameterError("parameter 'idf': weights must be finite numbers >= 0")
        return _objects(keys), values, None

    def _idf(self, stats: TextStats, keep: np.ndarray) -> np.ndarray:
        """scikit-learn's idf over the kept terms: ln((1 + n) / (1 + df)) + 1 (smooth_idf) or
        ln(n / df) + 1; ones with ``use_idf=False`` (TfidfVectorizer's: tf and the L2 norm only)."""
        if not getattr(self, "use_idf", True):
            return np.ones(int(np.count_nonzero(keep)))
        n, df = stats.n_docs, stats.df[keep]
        idf: np.ndarray = np.log((1.0 + n) / (1.0 + df)) + 1.0 if self.smooth_idf else np.log(n / df) + 1.0
        return idf

    def _weigh(self, X: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
        """Counts to tf-idf rows of unit L2 norm (TfidfVectorizer with norm='l2'; with
        ``binary``, tf is 1 for a term the document holds, as TfidfVectorizer(binary=True))."""
        X = X.astype(np.float64)
        if self.binary:
            X.data[:] = 1.0
        elif self.sublinear_tf:
            X.data = 1.0 + np.log(X.data)
        X.data *= idf[X.indices]
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        X.data /= np.where(norms[rows] > 0, norms[rows], 1.0)
        return X

    def tfidf_key(self) -> tuple[bool, bool, bool, bool]:
        """The settings that shape the tf-idf rows of given counts under a given vocabulary."""
        return (bool(self.smooth_idf), bool(self.sublinear_tf), bool(self.binary), bool(getattr(self, "use_idf", True)))

    def _active(self, stats: TextStats) -> np.ndarray:
        """The terms a vectoriser fitted on these documents would keep (scikit-learn's rules;
        a term no kept document holds any more, df = 0, is never kept)."""
        n = stats.n_docs
        hi = self.max_df if isinstance(self.max_df, numbers.Integral) else self.max_df * n
        lo = self.min_df if isinstance(self.min_df, numbers.Integral) else self.min_df * n
        # hi < lo (proportions of few documents) keeps no term: the stream may bring more
        if self.n_features is not None and (self.min_df, self.max_df, self.max_features) == (1, 1.0, None):
            # hashing mode, as HashingVectorizer: every bucket is a column, empty or not
            return np.ones(len(stats.df), dtype=bool)
        keep = (stats.df > 0) & (stats.df >= lo) & (stats.df <= hi)
        if self.max_features is not None and keep.sum() > self.max_features:
            idx = np.flatnonzero(keep)
            order = np.argsort(-stats.tf[idx], kind="stable")[: self.max_features]
            keep = np.zeros_like(keep)
            keep[idx[order]] = True
        return keep  # possibly no term: a model then predicts by its prior (docs/text.md)

    @staticmethod
    def _counts(table: Any, docs: Docs, binary: bool) -> sp.csr_matrix:
        tok = table.tokens(docs.buf, docs.bounds, docs.table)
        tok = tok[tok[:, 1] >= 0]
        X = sp.csr_matrix(
            (np.ones(len(tok)), (tok[:, 0], tok[:, 1])), shape=(docs.shape[0], len(table))
        )
        X.sum_duplicates()
        if binary:
            X.data[:] = 1.0
        return X
