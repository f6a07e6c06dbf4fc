"""TextClassifier: tokenise, count per class and predict in compiled kernels, one object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_choice, check_number, check_sample_weight, check_y, classes_and_codes
from ..errors import DataError, InvalidParameterError
from ..naive_bayes._base import BaseNB, _same_labels
from ..naive_bayes.bernoulli import BernoulliNB, _Binary
from ..naive_bayes.complement import ComplementNB
from ..naive_bayes.multinomial import MultinomialNB, _log_ratio_scores
from ..stats import CountStats
from ..stats.text import TextStats, _union
from ._settings import TextSettings, _Docs
from ._vocab import HashedTerms, TermTable, hash_terms, learn_terms

MODELS = {"multinomial": MultinomialNB, "complement": ComplementNB, "bernoulli": BernoulliNB, "nblr": MultinomialNB}
_NOT_STATS = (
    "model='nblr' is fitted by logistic regression on all the documents at once: its weights are "
    "not sums of per-class statistics, so {what} is not exact; fit again on all documents"
)


@dataclass
class TokenExplanation:
    """Each token of one document, in order, with its contribution to the log-odds of the
    predicted class against the runner-up; ``sum(contributions) + baseline`` is the
    difference of their joint log-probabilities. ``tokens`` are lower-cased (as counted);
    ``spans`` index the text as given, also where lower-casing changes its length."""

    predicted: Any
    runner_up: Any
    tokens: list[str]
    spans: list[tuple[int, int]]
    contributions: np.ndarray
    baseline: float


class TextClassifier(TextSettings, BaseNB):
    """A Naive Bayes text classifier: vectoriser and model behind one object and one file.

    Tokens follow scikit-learn's ``CountVectorizer`` defaults: lower-cased (``lowercase``),
    ``(?u)\\b\\w\\w+\\b``. Training counts terms per class in a compiled kernel without building
    a document-term matrix, and prediction adds per-term weights the same way. ``model`` is
    ``"multinomial"``, ``"complement"`` or ``"bernoulli"`` (term presence); ``binary=True``
    counts each term once per document for the multinomial and complement models.
    ``"nblr"`` is Wang & Manning's (2012) NBSVM with a logistic loss: term presence scaled by
    the Naive Bayes log-count ratio r = log(p / |p|_1) - log(q / |q|_1) (p, q: the class's and
    the other classes' smoothed document counts), an L2 logistic regression (``C``) on the scaled
    features, and their interpolation ``w' = (1 - beta) mean|w| + beta w``
    (``nb_interpolation``, their beta = 0.25), with the intercept refitted by maximum likelihood
    for ``w'``. More than two classes: one such model per class against the rest, the scores
    normalised by softmax. ``min_df``,
    ``max_df`` and ``max_features`` (as in scikit-learn's vectorisers) select the terms at
    estimation from statistics that keep every term, so ``partial_fit`` (a vocabulary that
    grows), ``merge`` and ``unlearn`` stay exact.

    ``tfidf=True`` sums the documents' tf-idf vectors per class (``TfidfVectorizer``'s rows). By
    default the idf is learned from the documents given to ``fit``, so that model is made in one
    ``fit``. ``idf=`` a mapping term -> weight (such as a fitted tf-idf model's ``idf_``)
    freezes the vocabulary and the weights: each document's vector then depends on that
    document alone, and ``partial_fit``, ``merge`` and ``unlearn`` are exact again.

    Documents without labels: ``fit(X, y, X_unlabeled=U)`` trains by EM (Nigam et al. 2000;
    multinomial and Bernoulli models) with :class:`nbayes.EM`'s defaults and leaves this model
    the EM-completed model (``n_iter_`` / ``em_log_likelihood_`` report the run); for other EM
    settings (``unlabeled_weight="cv"``, ``unlabeled_label``, ``n_components``) wrap it:
    ``nbayes.EM(TextClassifier(...), ...)``. See docs/semi-supervised.md.

    >>> clf = TextClassifier(alpha=0.5).fit(
    ...     ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch meeting"],
    ...     ["spam", "ham", "spam", "ham"])
    >>> clf.predict(["a cheap offer", "noon meeting"]).tolist()
    ['spam', 'ham']
    """

    _stats_params = ("lowercase", "n_features", "ngram_range", "stop_words")

    _capabilities = (BaseNB._capabilities | {"text", "unlabeled", "mixture"}) - {"to_logistic"}

    @property
    def capabilities(self) -> frozenset[str]:
        caps = set(super().capabilities)
        if self.model == "nblr":  # weights fitted by logistic regression over all documents
            caps -= {"partial_fit", "unlearn", "merge", "statistics", "with_prior", "unlabeled",
                      "mixture", "joint_log_proba"}
        elif self.model == "complement":
            caps -= {"with_prior"}
        if self.model not in ("multinomial", "bernoulli"):
            caps -= {"unlabeled", "mixture"}
        if self.tfidf:
            caps -= {"mixture"}
        if self.tfidf and self.idf is None:  # a learned idf: the model is made in one fit
            caps -= {"partial_fit", "unlearn", "merge"}
        return frozenset(caps)

    def __init__(
        self,
        *,
        model: str = "multinomial",
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Any = None,
        norm: bool = False,
        lowercase: bool = True,
        binary: bool = False,
        min_df: float = 1,
        max_df: float = 1.0,
        max_features: int | None = None,
        n_features: int | None = None,
        ngram_range: tuple[int, int] = (1, 1),
        stop_words: Any = None,
        tfidf: bool = False,
        sublinear_tf: bool = False,
        smooth_idf: bool = True,
        idf: Any = None,
        C: float = 1.0,
        nb_interpolation: float = 0.25,
    ) -> None:
        self.model = model
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm
        self.lowercase = lowercase
        self.binary = binary
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.n_features = n_features
        self.ngram_range = ngram_range
        self.stop_words = stop_words
        self.tfidf = tfidf
        self.sublinear_tf = sublinear_tf
        self.smooth_idf = smooth_idf
        self.idf = idf
        self.C = C
        self.nb_interpolation = nb_interpolation

    # ------------------------------------------------------------------ boundary
    def _inner(self) -> BaseNB:
        params: dict[str, Any] = {"alpha": self.alpha, "fit_prior": self.fit_prior, "class_prior": self.class_prior}
        if self.model == "complement":
            params["norm"] = self.norm
        inner = MODELS[self.model](**params)
        if self._has_components():  # its estimate lays out the components (fitted by EM)
            inner.__dict__["_layout"] = self.__dict__["_layout"]
        return inner

    def _check_params(self) -> None:
        check_choice("model", self.model, tuple(MODELS))
        self._inner()._check_params()
        self._check_text_params()
        if self.tfidf and self.model in ("bernoulli", "nblr"):
            raise InvalidParameterError(
                "tfidf=True weighs counts: it takes model='multinomial' or 'complement'"
            )
        check_number("C", self.C, low=0.0, low_open=True)
        check_number("nb_interpolation", self.nb_interpolation, low=0.0, high=1.0)

    @property
    def _presence(self) -> bool:
        """Whether a term counts once per document (binary counts, Bernoulli, NBLR)."""
        return bool(self.binary) or self.model in ("bernoulli", "nblr")

    # ------------------------------------------------------------------ statistics
    def _count(self, docs: _Docs, codes, n_classes, w) -> TextStats:
        frozen = self._frozen_idf() if self.tfidf else None
        if frozen is not None:
            return self._count_frozen(docs, codes, n_classes, w, frozen)
        if self.n_features is None:
            found = learn_terms(docs.buf, docs.bounds, docs.table, codes, w, n_classes, self._how())
        else:
            found = hash_terms(docs.buf, docs.bounds, docs.table, codes, w, n_classes, self.n_features, self._how())
        terms, counts, dcounts, df, tf, *table = found
        cc = np.bincount(codes, weights=w, minlength=n_classes).astype(np.float64)
        stats = TextStats(terms, cc, counts, dcounts, df, tf, float(docs.shape[0]), table[0] if table else None)
        if self.tfidf:
            stats.weighted = self._tfidf_sums(stats, docs, codes, n_classes, w)
        return stats

    # ------------------------------------------------------------------ tf-idf
    def _tfidf_sums(self, stats: TextStats, docs: _Docs, codes, n_classes, w) -> tuple:
        """(kept terms, idf, per-class sums of the documents' tf-idf vectors). tf-idf depends on
        the whole corpus (idf, and the norm over kept terms), so these sums are not additive."""
        from ..naive_bayes._discrete import class_indicator

        keep = self._active(stats)
        idf = self._idf(stats, keep)
        table = TermTable(stats.terms[keep], self._how())
        X = self._weigh(self._counts(table, docs, False), idf)
        Y = class_indicator(codes, n_classes, w)
        return keep, idf, np.ascontiguousarray((Y.T @ X).toarray())  # C order, as loaded back

    def _count_frozen(self, docs: _Docs, codes, n_classes, w, frozen) -> TextStats:
        """Statistics under a frozen idf, over its terms only: the counts, and the per-class sums
        of each document's tf-idf vector (tf or 1 + ln tf, times the frozen idf, unit L2 norm
        over these terms), which depend on nothing but the document, so they add up."""
        from ..naive_bayes._discrete import class_indicator, per_class_sum

        terms, idf, table = frozen
        if table is None:
            table = TermTable(terms, self._how())
        X = self._counts(table, docs, False)
        X01 = X.copy()
        X01.data[:] = 1.0
        Y = class_indicator(codes, n_classes, w)
        cc = np.bincount(codes, weights=w, minlength=n_classes).astype(np.float64)
        sums = per_class_sum(Y, self._weigh(X, idf))
        return TextStats(
            terms, cc, per_class_sum(Y, X), per_class_sum(Y, X01), np.asarray(X01.sum(axis=0)).ravel(),
            np.asarray(X.sum(axis=0)).ravel(), float(docs.shape[0]), table, (np.ones(len(terms), dtype=bool), idf, sums),
        )

    def _check_streamable(self, what: str) -> None:
        """tf-idf statistics add up only under a frozen idf, the one this model was fitted with."""
        if not self.tfidf or not hasattr(self, "classes_"):
            return
        frozen = self._frozen_idf()
        if frozen is None:
            raise InvalidParameterError(
                f"tfidf=True with a learned idf: idf and the L2 norms depend on the whole corpus, so "
                f"tf-idf statistics do not add up and {what} is not exact; fit again on all documents, "
                "or freeze the idf (TextClassifier(tfidf=True, idf=fitted.idf_)) to stream"
            )
        if not self._frozen_stats(frozen):
            raise InvalidParameterError(
                f"{what}: this model's tf-idf statistics were made with another idf than "
                "the frozen idf=... it now has; fit again with it"
            )

    def _frozen_stats(self, frozen) -> bool:
        """Whether the fitted statistics are tf-idf sums under exactly this frozen idf."""
        terms, idf, _ = frozen
        weighted = self.stats_.weighted
        return (
            weighted is not None and bool(weighted[0].all()) and len(self.stats_.terms) == len(terms)
            and np.array_equal(weighted[1], idf) and np.array_equal(self.stats_.terms, terms)
        )

    def partial_fit(self, X: Any, y: Any = None, classes: Any = None, sample_weight: Any = None):
        self._no_components("partial_fit")
        if self.model == "nblr":
            raise InvalidParameterError(_NOT_STATS.format(what="partial_fit"))
        self._check_streamable("partial_fit")
        if y is not None and self._accumulates(classes):
            if not isinstance(X, list | tuple | np.ndarray):
                X = list(X)  # read a one-shot iterable once, whichever path takes it
            if self._accumulate(X, y, sample_weight):
                return self
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def _accumulates(self, classes: Any) -> bool:
        """Hashing mode, counts, fitted, the same classes: add the chunk's counts in place."""
        return (
            self.n_features is not None
            and not self.tfidf
            and hasattr(self, "stats_")
            and (classes is None or _same_labels(np.asarray(list(classes), dtype=object), self.classes_))
        )

    def _accumulate(self, X: Any, y: Any, sample_weight: Any) -> bool:
        """Count the chunk straight into the model's statistics (no per-chunk K x n_features
        tables, no re-estimation until the parameters are next used). False when the chunk
        brings a class the model has not seen (the general path handles it)."""
        from .._kernels.text import hash_counts
        from .._validation import encode_labels

        self._check_params()
        docs, _ = self._prepare_X(X, fitting=False)
        n = docs.shape[0]
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        codes, unknown = encode_labels(y, self.classes_)
        if unknown.any():
            return False
        s = self.stats_
        has_w = w is not None
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        hash_counts(docs.buf, docs.bounds, codes, w if has_w else np.empty(0), has_w, docs.table,
                    *self._how().args(), int(self.n_features), s.term_count, s.doc_count, s.df, s.tf,
                    np.full(int(self.n_features), -1, dtype=np.int64))
        s.class_count += np.bincount(codes, weights=w, minlength=len(self.classes_))
        s.n_docs += n
        self._defer_estimation()
        return True

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None):
        if self.model == "nblr":
            raise InvalidParameterError(_NOT_STATS.format(what="unlearn"))
        self._check_fitted()
        self._check_streamable("unlearn")
        return super().unlearn(X, y, sample_weight=sample_weight)

    def merge(self, other: Any):
        from ..errors import MergeError

        if self.model == "nblr" or getattr(other, "model", None) == "nblr":
            raise MergeError(_NOT_STATS.format(what="merge"))
        if isinstance(other, TextClassifier) and (self.tfidf or other.tfidf):
            self._check_fitted()
            other._check_fitted()
            for m in (self, other):
                frozen = m._frozen_idf() if m.tfidf else None
                if frozen is None or not m._frozen_stats(frozen):
                    raise MergeError(
                        "cannot merge tf-idf models with learned idfs: their idfs and norms come from "
                        "different corpora; freeze one idf (idf=...) for both to merge"
                    )
            if not (self.tfidf and other.tfidf and np.array_equal(self._terms, other._terms)
                    and np.array_equal(self._idf, other._idf)):
                raise MergeError("cannot merge tf-idf models with different frozen idfs")
            if bool(self.sublinear_tf) != bool(other.sublinear_tf):
                raise MergeError("cannot merge: parameter 'sublinear_tf' differs and it shapes the tf-idf sums")
        return super().merge(other)

    @property
    def idf_(self) -> dict[str, float]:
        """tf-idf models: term -> idf weight over the vocabulary (learned by ``fit``, or the
        frozen ``idf``). Pass it as ``idf=`` to a new model to stream with this idf.

        >>> first = TextClassifier(tfidf=True).fit(["cheap pills", "noon meeting"], ["spam", "ham"])
        >>> clf = TextClassifier(tfidf=True, idf=first.idf_)
        >>> clf.partial_fit(["cheap offer"], ["spam"], classes=["ham", "spam"])
        TextClassifier(idf=<idf of 4 terms>, tfidf=True)
        >>> clf.partial_fit(["lunch meeting"], ["ham"]).predict(["cheap pills"]).tolist()
        ['spam']
        """
        self._check_fitted()
        if not self.tfidf:
            raise AttributeError("idf_ exists for tf-idf models (tfidf=True) only")
        return dict(zip(self._terms.tolist(), self._idf.tolist()))

    def __repr__(self) -> str:
        if getattr(self, "idf", None) is None:
            return super().__repr__()
        import copy

        shown = copy.copy(self)  # the mapping can hold 100,000 terms: name its size only
        try:
            shown.idf = _Shown(f"<idf of {len(self.idf)} terms>")
        except TypeError:
            return super().__repr__()
        return super(TextClassifier, shown).__repr__()

    # ------------------------------------------------------------------ NBLR
    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, X_unlabeled: Any = None
    ) -> "TextClassifier":
        """Count (and for ``model="nblr"`` also train the logistic models); returns self.
        ``X_unlabeled``: documents without labels, learned from by EM with :class:`nbayes.EM`'s
        defaults (multinomial and Bernoulli models): this model becomes the EM-completed model
        (see :meth:`BaseNB.fit` and docs/semi-supervised.md)."""
        if self.model != "nblr" or X_unlabeled is not None:
            return super().fit(X, y, sample_weight=sample_weight, X_unlabeled=X_unlabeled)
        self._check_params()
        docs, names = self._prepare_X(X, fitting=True)
        n = docs.shape[0]
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        classes, codes = classes_and_codes(y)
        if len(classes) < 2:
            raise DataError(f"y: model='nblr' needs at least 2 classes; the data has only {classes.tolist()}")
        stats = self._count(docs, codes, len(classes), w)
        derived = self._estimate(stats, docs.shape[1])  # vocabulary and term table, unassigned
        table, keep = derived["_table"], derived["_keep"]
        X01 = self._counts(table, docs, True)
        if self.n_features is not None:
            X01 = X01[:, keep]
        weights, intercept = self._nblr(X01, stats.doc_count[:, keep] if not keep.all() else stats.doc_count, codes, w)
        self._commit(stats, classes, docs.shape[1], names)
        self._set_nblr(weights, intercept)
        return self

    def _nblr(self, X01: sp.csr_matrix, dcount: np.ndarray, codes: np.ndarray, w: np.ndarray | None):
        """Per class (one model for two classes): r, the logistic fit on x * r, interpolation."""
        from ..linear import LogisticRegression

        K, V = dcount.shape
        a = float(self.alpha)
        targets = [1] if K == 2 else list(range(K))
        W = np.zeros((V, K))
        b = np.zeros(K)
        for c in targets:
            p = dcount[c] + a
            q = dcount.sum(axis=0) - dcount[c] + a
            r = (np.log(p) - np.log(p.sum())) - (np.log(q) - np.log(q.sum()))  # W&M eq. for r
            Xr = X01 @ sp.diags(r)
            yc = (codes == c).astype(np.int64)
            lr = LogisticRegression(C=float(self.C)).fit(Xr, yc, sample_weight=w)
            coef = lr.coef_[0]
            beta = float(self.nb_interpolation)
            bias = float(lr.intercept_[0])
            if beta < 1.0:
                coef = (1.0 - beta) * np.mean(np.abs(coef)) + beta * coef
                bias = _refit_bias(np.asarray(Xr @ coef), yc, w)
            W[:, c] = r * coef
            b[c] = bias
        return W, b

    def _set_nblr(self, weights: np.ndarray, intercept: np.ndarray) -> None:
        self._weights = np.ascontiguousarray(weights)
        self._intercept = np.asarray(intercept, dtype=float)
        self._const = np.zeros(len(intercept))
        self._fast = True

    def _state(self) -> dict[str, Any]:
        state = super()._state()
        if self.idf is not None and self.tfidf:
            frozen = self._frozen_idf()
            if frozen is not None and self._frozen_stats(frozen):
                # the statistics hold the frozen terms and weights already (stats/terms, stats/idf)
                state["params"]["idf"] = None
                state["meta"]["idf"] = "frozen"
        if self.model == "nblr":
            state["arrays"]["nblr/weights"] = self._weights
            state["arrays"]["nblr/intercept"] = self._intercept
        return state

    @classmethod
    def _from_state(cls, state: dict[str, Any]) -> "TextClassifier":
        model = super()._from_state(state)
        if state["meta"].get("idf") == "frozen":
            model.idf = model.idf_
        if model.model == "nblr":
            model._set_nblr(state["arrays"]["nblr/weights"], state["arrays"]["nblr/intercept"])
        return model

    # ------------------------------------------------------------------ estimation
    def _estimate(self, stats: TextStats, n_features: int) -> dict[str, Any]:
        if self.tfidf:
            keep, idf, fc = stats.weighted
        else:
            keep, idf = self._active(stats), None
            uses_docs = self._presence
            fc = stats.doc_count if uses_docs else stats.term_count
            if not keep.all():
                fc = fc[:, keep]
        inner = self._inner()
        V = int(keep.sum())
        derived = inner._estimate(CountStats(stats.class_count, fc), V)
        for key, value in derived.items():
            setattr(inner, key, value)
        inner.stats_ = CountStats(stats.class_count, fc)
        inner.n_features_in_ = V
        vocab = stats.terms[keep]
        flp = derived["feature_log_prob_"]
        const = np.zeros(len(stats.class_count))
        if self.model == "bernoulli":
            weights = flp - derived["_log_absent"]
            const = derived["_log_absent"].sum(axis=1)
        else:
            weights = flp
        if self.n_features is not None:  # buckets: inactive ones weigh nothing
            if not keep.all():
                full = np.zeros((len(stats.class_count), self.n_features))
                full[:, keep] = weights
                weights = full
            table = HashedTerms(self.n_features, self._how())
        elif stats.table is not None and keep.all():
            table = stats.table  # built while counting: no rebuild from strings
        else:
            table = TermTable(vocab, self._how())
        return {
            "inner_": inner,
            "_terms": vocab,
            "_keep": keep,
            "_idf": idf,
            "_table": table,
            "_weights": np.ascontiguousarray(weights.T),
            "_const": const,
            "_fast": bool(np.isfinite(weights).all() and np.isfinite(const).all()) and not self.tfidf,
            "class_log_prior_": derived["class_log_prior_"],
            "feature_log_prob_": flp,
            "_intercept": derived["_intercept"],
            **{k: derived[k] for k in ("component_log_weight_",) if k in derived},
        }

    # ------------------------------------------------------------------ semi-supervised EM
    def _check_em(self) -> None:
        if self.model not in ("multinomial", "bernoulli") or self.tfidf:
            raise InvalidParameterError(
                f"EM over unlabelled documents needs a generative model of counts: model="
                f"'multinomial' or 'bernoulli' without tfidf (got model={self.model!r}, "
                f"tfidf={self.tfidf!r}; complement and nblr have no P(x, y), tf-idf sums do not add)"
            )

    def _em_views(self, parts: list[_Docs]) -> list["_CountedDocs"]:
        """Each batch of documents tokenised once, as count matrices over one vocabulary: the
        model's terms and every term of the batches (the vocabulary of all documents)."""
        found = [self._count(d, np.zeros(d.shape[0], dtype=np.intp), 1, None) for d in parts]
        if self.n_features is not None:
            terms, table = np.arange(self.n_features, dtype=np.int64), HashedTerms(self.n_features, self._how())
        else:
            terms = self.stats_.terms
            for f in found:
                terms = _union(terms, f.terms)
            table = TermTable(terms, self._how())
        out = []
        for d, f in zip(parts, found):
            X = self._counts(table, d, False)
            X01 = X.copy()
            X01.data[:] = 1.0
            pos = np.searchsorted(terms, f.terms) if len(f.terms) != len(terms) else slice(None)
            df, tf = np.zeros(len(terms)), np.zeros(len(terms))
            df[pos], tf[pos] = f.df, f.tf
            out.append(_CountedDocs(terms, table, X, X01, df, tf, float(d.shape[0])))
        return out

    def _em_align(self, stats: TextStats, views: list["_CountedDocs"]) -> TextStats:
        if not views:
            return stats
        import dataclasses

        aligned = stats._on(views[0].terms)
        return dataclasses.replace(aligned, table=views[0].table if self.n_features is None else None)

    def _em_jll(self, view: "_CountedDocs") -> np.ndarray:
        from ..naive_bayes._discrete import safe_linear

        if self.n_features is None:  # rows of the kept terms among the view's (the same vocabulary)
            W = np.zeros((len(view.terms), self._weights.shape[1]))  # classes, or components
            W[self._keep] = self._weights
        else:
            W = self._weights
        X = view.X01 if self._presence else view.X
        return safe_linear(X, W.T) + self._const + self._intercept

    def _count_soft(self, view: "_CountedDocs", R: np.ndarray) -> TextStats:
        from ..naive_bayes._discrete import soft_class_sum

        return TextStats(view.terms, R.sum(axis=0), soft_class_sum(R, view.X), soft_class_sum(R, view.X01),
                         view.df, view.tf, view.n_docs, view.table if self.n_features is None else None)

    def _em_log_prior(self) -> float:
        return self.inner_._em_log_prior()

    @property
    def vocabulary_(self) -> dict[str, int]:
        """Term -> column of ``transform`` (the terms the estimation kept, sorted)."""
        self._check_fitted()
        return {t: i for i, t in enumerate(self._terms.tolist())}

    # ------------------------------------------------------------------ inference
    def _loglik(self, docs: _Docs) -> np.ndarray:
        binary = self._presence
        if self._fast:
            return self._table.score(docs.buf, docs.bounds, docs.table, self._weights, binary) + self._const
        X = self._matrix(docs, binary)  # tf-idf, or -inf weights (alpha = 0): the sparse path
        if self.tfidf:
            return self.inner_._loglik(self._weigh(X, self._idf))
        if self.n_features is not None:
            X = X[:, self._keep]
        if self.model == "bernoulli":
            return self.inner_._loglik(_Binary(X, None))
        return self.inner_._loglik(X)

    def _matrix(self, docs: _Docs, binary: bool) -> sp.csr_matrix:
        return self._counts(self._table, docs, binary)


    def transform(self, texts: Any) -> sp.csr_matrix:
        """The document-term count matrix over the model's vocabulary (columns = ``vocabulary_``),
        or in hashing mode over the ``n_features`` buckets (scikit-learn's ``HashingVectorizer``
        with ``alternate_sign=False, norm=None``)."""
        self._check_fitted()
        docs, _ = self._prepare_X(texts, fitting=False)
        return self._matrix(docs, self.binary)

    # ------------------------------------------------------------------ explanations
    def explain(self, text: Any) -> TokenExplanation:  # type: ignore[override]
        """Each token of ``text``, in order, with its contribution to the log-odds of the
        predicted class against the runner-up (0 for a word outside the vocabulary, and for
        repeats in presence models)."""
        self._check_fitted()
        self._no_explanation("explain")
        docs, _ = self._prepare_X([text], fitting=False)
        joint = self._jll(docs)[0]
        order = np.argsort(-joint, kind="stable")
        a, b = order[0], order[1] if len(order) > 1 else order[0]
        tok = self._table.tokens(docs.buf, docs.bounds, docs.table)
        binary = self._presence
        flp = self._weights
        contrib = np.zeros(len(tok))
        seen: set[int] = set()
        for k, t in enumerate(tok[:, 1].tolist()):
            if t < 0 or (binary and t in seen):
                continue
            seen.add(t)
            wa, wb = flp[t, a], flp[t, b]
            contrib[k] = 0.0 if wa == wb else wa - wb
        lowered = docs.buf[docs.bounds[0] : docs.bounds[1]]
        raw = lowered.astype(np.uint32).tobytes().decode("utf-32-le", errors="surrogatepass")
        tokens = [raw[s:e] for s, e in tok[:, 2:4].tolist()]
        baseline = float(self._intercept[a] - self._intercept[b] + self._const[a] - self._const[b])
        spans = [(int(s), int(e)) for s, e in tok[:, 2:4].tolist()]
        if self.lowercase:  # spans into the text as given, not its lower-cased form
            original = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else str(text)
            spans = _original_spans(original, spans)
        return TokenExplanation(self.classes_[a], self.classes_[b], tokens, spans, contrib, baseline)

    def _feature_scores(self):
        names = self._terms.tolist()
        if self.n_features is not None:  # hashing keeps no tokens: buckets are named by number
            names = [f"#{b}" for b in names]
        return _log_ratio_scores(self._class_rows(self.inner_.feature_count_), self.alpha, True), names

    @classmethod
    def _stats_from_arrays(cls, arrays, n_features):
        return TextStats.from_arrays(arrays)


@dataclass
class _CountedDocs:
    """Documents as EM iterates over them: counts and presence over ``terms``, and their
    corpus-level counts (documents containing each term, occurrences, documents)."""

    terms: np.ndarray
    table: Any
    X: sp.csr_matrix
    X01: sp.csr_matrix
    df: np.ndarray
    tf: np.ndarray
    n_docs: float

    @property
    def shape(self) -> tuple[int, int]:
        return (self.X.shape[0], 1)


class _Shown:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _refit_bias(z: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> float:
    """The maximum-likelihood intercept for fixed scores z: a 1-D convex problem, by Newton."""
    from scipy.special import expit

    w = np.ones(len(z)) if w is None else w
    b = 0.0
    for _ in range(100):
        p = expit(z + b)
        g = float(np.sum(w * (p - y)))
        h = float(np.sum(w * p * (1 - p)))
        if h <= 0:
            break
        step = float(np.clip(g / h, -5.0, 5.0))  # damped: p(1-p) can be tiny far out
        b -= step
        if abs(step) < 1e-12 * max(1.0, abs(b)):
            break
    return b


def _original_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans into ``text`` for spans into ``text.lower()``. Lower-casing can lengthen a string
    ('İ' becomes two code points), and the tokeniser works on the lower-cased text."""
    if len(text.lower()) == len(text):
        return [(int(s), int(e)) for s, e in spans]
    ends = np.cumsum([len(c.lower()) for c in text])  # lowered end of each original character
    starts = ends - np.array([len(c.lower()) for c in text])
    out = []
    for s, e in spans:
        i = int(np.searchsorted(ends, s, side="right"))  # the character whose lowered form holds s
        j = int(np.searchsorted(starts, e, side="left"))  # first character starting at or after e
        out.append((i, max(j, i + 1)))
    return out
