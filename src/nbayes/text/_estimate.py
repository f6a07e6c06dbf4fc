"""TextClassifier's estimation: statistics and settings to a :class:`~nbayes.text.params.TextParams`
value, over the (class, term) pairs seen where the model allows it, else as a dense terms x
classes table. Nothing here reads or changes a fitted model: ``estimate_parameters`` reads the
settings of the model it is called on, and the value holds a copy of them."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._kernels.text_parts import kept_parts
from ..errors import StatisticsError
from ..naive_bayes.bernoulli import BernoulliParams
from ..naive_bayes.params import Params, assign_parameters
from ..stats import CountStats
from ..stats.text import TextStats
from ..stats.terms import CodeTerms, as_strings
from ._stream import known_chunk
from .online import plus
from .params import TextDelta, TextParams, _forget_empty
from .vocab import AnyTerms, HashedTerms, Pairs, TermTable


class TextEstimation:
    """The ``estimate_parameters`` hook of :class:`~nbayes.text.TextClassifier` (expects its
    settings and :class:`~nbayes.text.settings.TextSettings`)."""

    def estimate_parameters(self: Any, stats: TextStats, n_features: int) -> TextParams:
        """The parameters of these statistics (:func:`estimate`, with this model's settings)."""
        return estimate(stats, self._new_like(self))

    def _over_pairs(self: Any) -> bool:
        """Whether the parameters are (class, term) pairs plus a weight per class for the terms
        a class never held (multinomial and Bernoulli models over a vocabulary, alpha > 0)."""
        return bool(self.model in ("multinomial", "bernoulli", "nblr") and not self.tfidf and self.n_features is None
                    and "_layout" not in self.__dict__ and np.ndim(self.alpha) == 0 and float(self.alpha) > 0)

    def _plus_chunk(self: Any, X: Any, y: Any, classes: Any, sample_weight: Any) -> bool:
        """The chunk's statistics, and the parameters of the sum from the change alone
        (:meth:`TextParams.plus`); False (nothing changed) when that path does not apply."""
        p = self.params_
        if not (self._over_pairs() and self.model == "multinomial" and _same_settings(self, p.settings)) or (
                classes is not None and not np.array_equal(np.asarray(list(classes), dtype=object),
                                                           np.asarray(self.classes_, dtype=object))):
            return False
        chunk = known_chunk(self, X, y, sample_weight)
        if chunk is None:
            return False
        docs, codes, w = chunk
        K = len(self.classes_)
        new = p.plus(TextDelta(self.count_statistics(docs, codes, K, w), np.arange(K)))
        if new is None:
            return False
        self.take_parameters(new)
        return True

    def parameters_plus(self: Any, params: TextParams, delta: TextDelta) -> TextParams | None:
        """:meth:`TextParams.plus` (the settings' model computes it: :func:`nbayes.text.online.plus`)."""
        return plus(params, delta)

    def take_parameters(self: Any, params: TextParams) -> None:
        """Make ``params`` and their statistics ``params.stats`` the model's, in one step (the
        classes unchanged)."""
        assign_parameters(self, params, params.stats)

    def _pair_parameters(self: Any, stats: TextStats) -> TextParams:
        """Estimation over the pairs seen. Multinomial: log theta_ct = log(n_ct + alpha) -
        log(n_c + alpha V), so a term class c never held weighs base_c = log(alpha) - log(n_c +
        alpha V) and a pair seen adds log(n_ct + alpha) - log(alpha). Bernoulli (term presence,
        N_c documents): the weight log p - log(1 - p) with p = (n_ct + alpha) / (N_c + 2 alpha),
        and the constant sum_t log(1 - p_ct), the same way. The dense parameters (``inner_``,
        ``feature_log_prob_``, ``_weights``) are estimated only if asked for."""
        keep = self._active(stats)
        a = float(self.alpha)
        K = len(stats.class_count)
        fc = stats.doc_count if self._presence else stats.term_count
        if not keep.all():
            fc = fc[:, keep]
        V = int(keep.sum())
        by_term = sp.csc_matrix(fc)  # (statistics built dense by folds or EM: the same pairs)
        by_term.eliminate_zeros()
        by_term.sort_indices()
        cls = by_term.indices.astype(np.int64)
        n = by_term.data
        const = np.zeros(K)
        if self.model == "bernoulli":
            N = stats.class_count
            den = N + 2 * a
            log_q0 = np.log(N + a) - np.log(den)
            base = (np.log(a) - np.log(den)) - log_q0
            log_q = np.log(np.maximum(N[cls] - n, 0.0) + a) - np.log(den[cls])
            delta = ((np.log(n + a) - np.log(den[cls])) - log_q) - base[cls]
            seen = np.bincount(cls, minlength=K)
            const = (V - seen) * log_q0 + np.bincount(cls, weights=log_q, minlength=K)
        else:
            # summed over the pairs, in one order whether the statistics came dense or sparse
            total = np.bincount(cls, weights=n, minlength=K) + a * V
            # no term at all (V = 0): no document holds a known term, base weighs nothing
            base = np.log(a) - np.log(total) if V else np.zeros(K)
            delta = n + a  # log(n + a) - log(a), in place: no temporaries the size of the pairs
            np.log(delta, out=delta)
            delta -= np.log(a)
        priors = self._inner().prior_parameters(stats.class_count)
        priors.update(_forget_empty(priors, stats.class_count))
        vocab, table = _vocabulary(self, stats, keep)
        return TextParams(
            vocab=vocab, keep=keep, table=table, pairs=Pairs(by_term.indptr.astype(np.int64), cls, delta, base),
            const=const, fast=True, class_log_prior=priors["class_log_prior_"], intercept=priors["_intercept"],
            stats=stats, settings=self,
        )

    @property
    def _terms(self: Any) -> np.ndarray:
        """The vocabulary the estimation kept, sorted: Python strings (made when first read,
        :class:`~nbayes.stats.terms.CodeTerms`) or, in hashing mode, bucket numbers."""
        return as_strings(self._vocab)

    def dense_part(self: Any, stats: TextStats, keep: np.ndarray) -> dict[str, Any]:
        """``inner_``, ``_weights`` and ``feature_log_prob_`` of ``stats`` over the kept terms
        ``keep`` (no tf-idf), as the dense estimation makes them: what a model estimated over
        pairs derives when they are read (:meth:`TextParams.dense`)."""
        fc = stats.doc_count if self._presence else stats.term_count
        if not keep.all():
            fc = fc[:, keep]
        if sp.issparse(fc):
            fc = fc.toarray()
        inner, est, _, weights, _ = self._count_part(stats, keep, fc)
        return {"inner_": inner, "_weights": np.ascontiguousarray(weights.T), "feature_log_prob_": est.attributes()["feature_log_prob_"]}

    def _count_part(self: Any, stats: TextStats, keep: np.ndarray, fc: Any) -> tuple[Any, Any, dict[str, Any], np.ndarray, np.ndarray]:
        """(the fitted count model over the kept columns ``fc``, its parameters, them by
        attribute name, the per-term weights (classes x terms), the constant per class)."""
        inner = self._inner()
        V = int(keep.sum())
        with np.errstate(divide="ignore", invalid="ignore") if V == 0 else contextlib.nullcontext():
            est = inner.estimate_parameters(CountStats(stats.class_count, fc), V)  # V = 0: no term yet
        assert isinstance(est, Params)  # (the count families' parameters are values)
        derived = est.attributes()
        if est.component_log_weight is None:
            gone = _forget_empty(derived, stats.class_count)
            if gone:
                est = replace(est, class_log_prior=gone["class_log_prior_"], intercept=gone["_intercept"])
                derived.update(gone)
        assign_parameters(inner, est)
        inner.stats_ = CountStats(stats.class_count, fc)
        inner.n_features_in_ = V
        flp = derived["feature_log_prob_"]
        const = np.zeros(len(stats.class_count))
        if isinstance(est, BernoulliParams):
            weights = flp - est.log_absent
            const = est.log_absent.sum(axis=1)
        else:
            weights = flp
        return inner, est, derived, weights, const

    def _dense_parameters(self: Any, stats: TextStats) -> TextParams:
        if self.tfidf:
            if stats.weighted is None:
                raise StatisticsError(
                    "tfidf=True: the statistics hold no tf-idf sums (stats/tfidf_keep, stats/idf, stats/tfidf_sums); "
                    "they were counted without tf-idf"
                )
            keep, idf, fc = stats.weighted
        else:
            keep, idf = self._active(stats), None
            uses_docs = self._presence
            fc = stats.doc_count if uses_docs else stats.term_count
            if not keep.all():
                fc = fc[:, keep]
            if sp.issparse(fc):
                fc = fc.toarray()
        inner, est, derived, weights, const = self._count_part(stats, keep, fc)
        flp = derived["feature_log_prob_"]
        table: AnyTerms
        vocab: Any
        if self.n_features is not None:  # buckets: inactive ones weigh nothing
            if not keep.all():
                full = np.zeros((len(stats.class_count), self.n_features))
                full[:, keep] = weights
                weights = full
            vocab, table = stats.terms[keep], HashedTerms(self.n_features, self._how())
        else:
            vocab, table = _vocabulary(self, stats, keep)
        return TextParams(
            inner=inner, vocab=vocab, keep=keep, idf_weights=idf, table=table, weights=np.ascontiguousarray(weights.T),
            const=const, fast=bool(np.isfinite(weights).all() and np.isfinite(const).all()) and not self.tfidf,
            class_log_prior=derived["class_log_prior_"], feature_log_prob=flp, intercept=derived["_intercept"],
            component_log_weight=derived.get("component_log_weight_"), stats=stats, settings=self,
        )


def estimate(stats: TextStats, settings: Any) -> TextParams:
    """The parameters of ``stats`` under ``settings`` (an unfitted
    :class:`~nbayes.text.TextClassifier` holding them, which the value keeps): over the pairs
    seen where the model allows it, else dense. A pure function: nothing is assigned."""
    out: TextParams = settings._pair_parameters(stats) if settings._over_pairs() else settings._dense_parameters(stats)
    return out


def _same_settings(model: Any, settings: Any) -> bool:
    """Whether the parameters ``settings`` held are this model's now (no ``set_params`` since)."""
    a, b = model.get_params(), settings.get_params()
    for k, v in a.items():
        u = b[k]
        if v is u:
            continue
        try:
            if not (np.shape(v) == np.shape(u) and bool(np.all(np.asarray(v) == np.asarray(u)))):
                return False
        except (TypeError, ValueError):
            if v != u:
                return False
    return True


def _vocabulary(model: Any, stats: TextStats, keep: np.ndarray) -> tuple[Any, TermTable]:
    """(the kept terms, their term table): when every term is kept, the statistics' own (their
    vocabulary as counting left it, code points made strings only if read; the table built
    while counting), else the kept terms' strings and a table built from them."""
    if keep.all() and stats.table is not None:
        return stats.vocab, stats.table
    if keep.all() and isinstance(stats.vocab, CodeTerms):  # a vocabulary read from a file
        return stats.vocab, TermTable.from_codes(stats.vocab, model._how())
    vocab = stats.terms[keep]
    table = TermTable(vocab, model._how())
    counted = stats.table
    if isinstance(counted, TermTable) and counted._parts is not None and counted._loose == 0 and table.grams_by_ids():
        # the n-grams' parts counting found, for the kept terms (else built on first use)
        parts = np.empty((len(vocab), 2), dtype=np.int32)
        table.set_parts(parts, kept_parts(counted._parts, np.ascontiguousarray(keep, dtype=np.bool_), parts))
    return vocab, table
