"""The text models' side of semi-supervised EM (:mod:`nbayes.semi_supervised`): documents are
tokenised once, as count matrices over one vocabulary, and EM iterates over those."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..errors import InvalidParameterError
from ..naive_bayes.discrete import safe_linear, soft_class_sum
from ..stats.text import TextStats, union_terms
from .settings import Docs
from .vocab import AnyTerms, HashedTerms, TermTable


@dataclass
class CountedDocs:
    """Documents as EM iterates over them: counts and presence over ``terms``, and their
    corpus-level counts (documents containing each term, occurrences, documents)."""

    terms: np.ndarray
    table: Any
    X: sp.csr_matrix
    X01: sp.csr_matrix
    df: np.ndarray
    tf: np.ndarray
    n_docs: float
    #: shared by the views of one EM run (one vocabulary): "present", the positions in ``terms``
    #: of the terms the EM model's statistics keep (those some counted document holds)
    shared: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.X.shape[0], 1)


class TextEM:
    """EM hooks of :class:`~nbayes.naive_bayes._base.BaseNB` for TextClassifier (multinomial
    and Bernoulli models without tf-idf: the models with a P(x, y) over counts)."""

    def _check_em(self: Any) -> None:
        if self.model not in ("multinomial", "bernoulli") or self.tfidf:
            raise InvalidParameterError(
                f"EM over unlabelled documents needs a generative model of counts: model="
                f"'multinomial' or 'bernoulli' without tfidf (got model={self.model!r}, "
                f"tfidf={self.tfidf!r}; complement and nblr have no P(x, y), tf-idf sums do not add)"
            )

    def _em_views(self: Any, parts: list[Docs]) -> list[CountedDocs]:
        """Each batch of documents tokenised once, as count matrices over one vocabulary: the
        model's terms and every term of the batches (the vocabulary of all documents)."""
        found = [self.count_statistics(d, np.zeros(d.shape[0], dtype=np.intp), 1, None) for d in parts]
        table: AnyTerms
        if self.n_features is not None:
            terms, table = np.arange(self.n_features, dtype=np.int64), HashedTerms(self.n_features, self._how())
        else:
            terms = self.stats_.terms
            for f in found:
                terms = union_terms(terms, f.terms)
            table = TermTable(terms, self._how())
        out = []
        shared: dict[str, np.ndarray] = {}
        for d, f in zip(parts, found):
            X = self._counts(table, d, False)
            X01 = X.copy()
            X01.data[:] = 1.0
            pos = np.searchsorted(terms, f.terms) if len(f.terms) != len(terms) else slice(None)
            df, tf = np.zeros(len(terms)), np.zeros(len(terms))
            df[pos], tf[pos] = f.df, f.tf
            out.append(CountedDocs(terms, table, X, X01, df, tf, float(d.shape[0]), shared))
        return out

    def _em_align(self: Any, stats: TextStats, views: list[CountedDocs]) -> TextStats:
        if not views:
            return stats
        aligned = stats.on(views[0].terms)
        # the statistics EM sets hold the terms of the counted documents (labelled and unlabelled),
        # not those only a scored view (a held-out fold) has: where they sit among the views' terms
        views[0].shared["present"] = np.flatnonzero(aligned.df + sum(v.df for v in views) > 0)
        return dataclasses.replace(aligned, table=views[0].table if self.n_features is None else None)

    def _em_jll(self: Any, view: CountedDocs) -> np.ndarray:
        if self.n_features is None:  # rows of the kept terms among the view's (the same vocabulary)
            W = np.zeros((len(view.terms), self._weights.shape[1]))  # classes, or components
            if len(self._keep) == len(view.terms):
                W[self._keep] = self._weights
            else:  # the view holds terms no counted document has (a held-out fold's): they weigh 0
                present = view.shared.get("present")
                if present is not None and len(present) == len(self._keep):
                    W[present[self._keep]] = self._weights
                else:
                    W[np.searchsorted(view.terms, self._terms)] = self._weights
        else:
            W = self._weights
        X = view.X01 if self._presence else view.X
        jll: np.ndarray = safe_linear(X, W.T) + self._const + self._intercept
        return jll

    def count_expected(self: Any, view: CountedDocs, R: np.ndarray) -> TextStats:
        """The statistics of the documents counted with responsibilities ``R`` (n_docs, n_classes) as
        fractional class memberships: EM's expected counts."""
        return TextStats(view.terms, R.sum(axis=0), soft_class_sum(R, view.X), soft_class_sum(R, view.X01),
                         view.df, view.tf, view.n_docs, view.table if self.n_features is None else None)

    def _em_log_prior(self: Any) -> float:
        return float(self.inner_._em_log_prior())
