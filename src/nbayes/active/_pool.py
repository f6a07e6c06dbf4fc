"""A registered pool of unlabelled rows: tokenised and counted once, scored every round."""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._math import logsumexp
from ..errors import DataError
from ..text import Vectorizer


#: the settings that decide what a token is: the pool counts as the model tokenises
TOKENS = ("headers", "lowercase", "analyzer", "ngram_range", "stop_words")


class Pool:
    """Unlabelled rows kept between rounds of active learning (see docs/active-learning.md).

    ``Pool(model, X)``: for a text model (``"text"`` in ``model.capabilities``) the documents
    are tokenised and counted once, over the pool's own vocabulary; every round the model's
    joint log-probabilities are then a sparse product with its per-term log-probabilities
    (``feature_log_prob_``, looked up by ``vocabulary_``), equal to ``predict_joint_log_proba``
    for a multinomial model (terms the model has not seen add nothing, as in ``predict``). Other
    models (and text models without per-term parameters) are asked ``predict_log_proba(X)``.
    ``labelled``: the rows already labelled (never suggested again); :meth:`mark` adds to it.
    The L2-normalised tf-idf rows (``vectors``) give the similarities of the density strategy.
    """

    def __init__(self, model: Any, X: Any) -> None:
        self.model = model
        self.X = X
        self.text = "text" in model.capabilities
        if self.text:
            if isinstance(X, str) or not hasattr(X, "__len__"):
                raise DataError("X_pool: expected a sequence of documents (strings)")
            if len(X) == 0:
                raise DataError("X_pool has no rows; there is nothing to suggest")
            params = model.get_params()
            vec = Vectorizer(**{k: params[k] for k in TOKENS if k in params})
            self.terms: np.ndarray | None
            try:
                self.counts: sp.csr_matrix = vec.fit_transform(list(X)).tocsr().astype(np.float64)
                self.terms = np.asarray(vec.get_feature_names_out(), dtype=object)
            except DataError as exc:  # documents without a single term: rows of no counts, still a pool
                if "no terms remain" not in str(exc):
                    raise
                self.counts = sp.csr_matrix((len(X), 0), dtype=np.float64)
                self.terms = np.zeros(0, dtype=object)
        else:
            M = X if sp.issparse(X) else np.asarray(X, dtype=np.float64) if _numeric(X) else None
            self.counts = sp.csr_matrix(M) if M is not None and np.ndim(M) == 2 else None
            self.terms = None
        self.n = len(X) if self.counts is None else self.counts.shape[0]
        if self.n == 0:
            raise DataError("X_pool has no rows; there is nothing to suggest")
        self.labelled = np.zeros(self.n, dtype=bool)
        self._vectors: sp.csr_matrix | None = None
        self._sorted: np.ndarray | None = None
        self._order = np.zeros(0, dtype=np.int64)

    # ---------------------------------------------------------------- what the strategies read
    def linear_parameters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(column of each pool term in the model, -1 when unknown; the model's K x V log theta;
        its log prior) for a text model with per-term log-probabilities, else None."""
        m = self.model
        p = m.get_params()
        # a text multinomial model: estimated from document-term sums class by class by a count
        # model linear in the counts (not Bernoulli's, not complement's)
        caps: frozenset[str] = getattr(m, "capabilities", frozenset())
        if not self.text or not {"count_matrix", "per_class"} <= caps or "counts" not in m.count_model().capabilities \
                or any(p.get(k) for k in ("tfidf", "binary", "n_features")):
            return None
        try:
            flp = np.asarray(m.feature_log_prob_, dtype=np.float64)
            vocab = m.vocabulary_
        except AttributeError:
            return None
        if flp.ndim != 2 or flp.shape[1] != len(vocab) or not np.all(np.isfinite(flp)):
            return None
        cols = self.columns_in(vocab)
        return cols, flp, np.asarray(m.class_log_prior_, dtype=np.float64)

    def columns_in(self, vocab: dict[str, int]) -> np.ndarray:
        """The column of each pool term in a model vocabulary (-1: unknown), by a sorted search
        over fixed-width strings rather than a dictionary lookup per term."""
        if self.terms is None:  # a pool of rows, not documents: no term to find
            return np.zeros(0, dtype=np.int64)
        if self._sorted is None:
            self._sorted = np.asarray(self.terms.tolist(), dtype=str)
            self._order = np.argsort(self._sorted, kind="stable")
            self._sorted = self._sorted[self._order]
        names = np.asarray(list(vocab), dtype=str)
        index = np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))
        if len(names) > 1 and not np.all(names[1:] > names[:-1]):  # vocabulary_ comes sorted
            order = np.argsort(names, kind="stable")
            names, index = names[order], index[order]
        pos = np.searchsorted(names, self._sorted)
        pos_c = np.minimum(pos, max(len(names) - 1, 0))
        hit = (pos < len(names)) & (names[pos_c] == self._sorted) if len(names) else np.zeros(len(pos), bool)
        out = np.full(len(self.terms), -1, dtype=np.int64)
        out[self._order[hit]] = index[pos_c[hit]]
        return out

    def log_proba(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The model's log-posteriors of the pool rows (all, or ``rows``), this round."""
        rows = np.arange(self.n) if rows is None else rows
        lin = self.linear_parameters()
        if lin is None:
            L: np.ndarray = np.asarray(self.model.predict_log_proba(_take(self.X, rows)), dtype=np.float64)
            return L
        jll = self.joint(rows, lin)
        out: np.ndarray = jll - logsumexp(jll, axis=1, keepdims=True)
        return out

    def joint(self, rows: np.ndarray, lin: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        """The joint log-probabilities of pool ``rows`` from ``linear_parameters()``: the pool's
        counts times the model's log theta of each known term, plus the log prior."""
        cols, flp, log_prior = lin
        known = cols >= 0
        W = np.zeros((len(cols), flp.shape[0]))
        W[known] = flp[:, cols[known]].T
        jll: np.ndarray = np.asarray(self.counts[rows] @ W) + log_prior
        return jll

    @property
    def vectors(self) -> sp.csr_matrix:
        """L2-normalised tf-idf rows of the pool (for similarities), computed once."""
        if self._vectors is None:
            if self.counts is None:
                raise DataError("the density strategy needs numeric rows or documents; this pool has neither")
            X = self.counts.astype(np.float64)
            df = np.bincount(X.indices, minlength=X.shape[1])
            idf = np.log((1.0 + X.shape[0]) / (1.0 + df)) + 1.0
            V = sp.csr_matrix(X @ sp.diags(idf))
            norms = np.sqrt(np.asarray(V.multiply(V).sum(axis=1))).ravel()
            self._vectors = sp.csr_matrix(sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ V)
        return self._vectors

    def rows(self, indices: np.ndarray) -> Any:
        """The pool's original rows at ``indices`` (documents or matrix rows), to label and learn."""
        return _take(self.X, np.asarray(indices))

    def mark(self, indices: Any) -> None:
        """Record rows as labelled: they are never suggested again."""
        self.labelled[np.asarray(indices, dtype=np.int64)] = True


def _numeric(X: Any) -> bool:
    try:
        return np.asarray(X).dtype.kind in "biuf"
    except (TypeError, ValueError):
        return False


def _take(X: Any, rows: np.ndarray) -> Any:
    if sp.issparse(X) or isinstance(X, np.ndarray):
        return X[rows]
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if hasattr(X, "height") and hasattr(X, "columns"):  # a polars frame: rows by position
        return X[rows]
    return [X[int(i)] for i in rows]
