"""TextClassifier: tokenise, count per class and predict in compiled kernels, one object."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, Self

import numpy as np
from .._scipy import sparse as sp

from .._validation import (
    check_documents,
    check_choice,
    check_number,
    check_sample_weight,
    check_y,
    classes_and_codes,
)
from ..errors import DataError, InvalidParameterError, MergeError
from ..naive_bayes import BaseNB
from ..naive_bayes.bernoulli import BernoulliNB, Binary
from ..naive_bayes.complement import ComplementNB
from ..naive_bayes.multinomial import MultinomialNB, log_ratio_scores
from ..naive_bayes.params import assign_parameters
from ..stats.checks import check_shapes
from ..stats.text import TextStats
from ..stats.text_exact import exact_counts, plain_bound, set_whole_bound
from ._em import TextEM
from .settings import TextSettings, Docs
from ._tfidf import TfidfCounting
from .vocab import AnyTerms, HashedTerms, Pairs, TermTable, hash_terms, learn_terms
from ._stream import TextStream
from .explain import TokenExplanation, explain_tokens
from ._estimate import TextEstimation
from .params import TextAttributes, TextParams
from .nblr import fit_nblr, keep_columns

__all__ = ["TextClassifier", "TokenExplanation"]

MODELS: dict[str, type[BaseNB]] = {"multinomial": MultinomialNB, "complement": ComplementNB, "bernoulli": BernoulliNB, "nblr": MultinomialNB}
_NOT_STATS = (
    "model='nblr' is fitted by logistic regression on all the documents at once: its weights are "
    "not sums of per-class statistics, so {what} is not exact; fit again on all documents"
)


class TextClassifier(TextAttributes, TextSettings, TfidfCounting, TextEM, TextEstimation, BaseNB):
    """A Naive Bayes text classifier: vectoriser and model behind one object and one file.

    Tokens follow scikit-learn's ``CountVectorizer`` defaults: lower-cased (``lowercase``),
    ``(?u)\\b\\w\\w+\\b``; ``analyzer="char"`` / ``"char_wb"`` takes scikit-learn's
    character n-grams instead (see docs/text.md). ``headers=["subject"]`` reads e-mail and news
    messages without their header sections but for the values of the fields named (``[]``: the
    body alone; the default None reads every document as given; see docs/text.md). Training
    counts terms per class in a compiled kernel without building a document-term matrix, and
    prediction adds per-term weights the same way. ``model`` is
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

    ``tfidf=True`` sums the documents' tf-idf vectors per class (``TfidfVectorizer``'s rows, with
    its ``sublinear_tf``, ``smooth_idf``, ``use_idf`` and ``binary``: ``use_idf=False`` keeps
    the tf transform and the unit L2 length of each document without idf weights). By
    default the idf is learned from the documents given to ``fit``, so that model is made in one
    ``fit``. ``idf=`` a mapping term -> weight (such as a fitted tf-idf model's ``idf_``)
    freezes the vocabulary and the weights: each document's vector then depends on that
    document alone, and ``partial_fit``, ``merge`` and ``unlearn`` are exact again.

    Documents without labels: ``fit(X, y, X_unlabeled=U)`` trains by EM (Nigam et al. 2000;
    multinomial and Bernoulli models) with :class:`nbayes.EM`'s defaults but
    ``unlabeled_weight="auto"`` (chosen by cross-validation on the labelled documents) and leaves
    this model the EM-completed model (``n_iter_`` / ``em_log_likelihood_`` report the run); for other EM
    settings (a fixed ``unlabeled_weight``, ``unlabeled_label``, ``n_components``) wrap it:
    ``nbayes.EM(TextClassifier(...), ...)``. See docs/semi-supervised.md.

    >>> clf = TextClassifier(alpha=0.5).fit(
    ...     ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch meeting"],
    ...     ["spam", "ham", "spam", "ham"])
    >>> clf.predict(["a cheap offer", "noon meeting"]).tolist()
    ['spam', 'ham']
    """

    statistics_params = ("headers", "lowercase", "analyzer", "n_features", "ngram_range", "stop_words")

    _capabilities = (BaseNB._capabilities | {"text", "unlabeled", "mixture"}) - {"to_logistic"}

    # the statistics and the parameters estimated from them (TextParams: every fitted
    # attribute reads it), swapped together
    stats_: TextStats
    params_: TextParams

    @property
    def capabilities(self) -> frozenset[str]:
        caps = set(super().capabilities)
        if self.model == "nblr":  # weights fitted by logistic regression over all documents
            caps -= {"partial_fit", "unlearn", "merge", "statistics", "with_prior", "unlabeled",
                      "mixture", "joint_log_proba", "fold_statistics"}
            caps |= {"nb_logistic"}
        elif self.model == "complement":
            caps -= {"with_prior"}
        if self.idf is not None:  # a frozen idf (tf-idf): cross-validation fits per fold
            caps -= {"fold_statistics"}
        elif "fold_statistics" in caps:  # estimated from document-term sums (not NBLR)
            caps |= {"count_matrix"}
        if self.model in ("multinomial", "bernoulli"):
            caps |= {"per_class"}
        else:
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
        headers: Any = None,
        lowercase: bool = True,
        binary: bool = False,
        min_df: float = 1,
        max_df: float = 1.0,
        max_features: int | None = None,
        n_features: int | None = None,
        analyzer: str = "word",
        ngram_range: tuple[int, int] = (1, 1),
        stop_words: Any = None,
        tfidf: bool = False,
        sublinear_tf: bool = False,
        smooth_idf: bool = True,
        use_idf: bool = True,
        idf: Any = None,
        C: float = 1.0,
        nb_interpolation: float = 0.25,
    ) -> None:
        self.model = model
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm
        self.headers = headers
        self.lowercase = lowercase
        self.binary = binary
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.n_features = n_features
        self.analyzer = analyzer
        self.ngram_range = ngram_range
        self.stop_words = stop_words
        self.tfidf = tfidf
        self.sublinear_tf = sublinear_tf
        self.smooth_idf = smooth_idf
        self.use_idf = use_idf
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

    def check_params(self) -> None:
        check_choice("model", self.model, tuple(MODELS))
        self._inner().check_params()
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

    # ------------------------------------------------------------------ estimation over a count matrix
    # (what cross-validation's text engine uses: documents counted once, fold statistics summed
    # from the matrix, each candidate's estimation over the terms its fold keeps)
    def term_table(self, stats: TextStats | None) -> AnyTerms:
        """The table that finds the terms of ``stats`` (their vocabulary as counted; the buckets
        in hashing mode, where ``stats`` may be None) in documents, for :meth:`count_matrix`."""
        if self.n_features is not None:
            return HashedTerms(self.n_features, self._how())
        if stats is None:
            raise InvalidParameterError("term_table: a vocabulary model needs the statistics whose terms it finds")
        return stats.table if stats.table is not None else TermTable(stats.vocab, self._how())

    def count_matrix(self, table: AnyTerms, docs: Docs) -> sp.csr_matrix:
        """The documents (as ``prepare_input`` gives them) x the terms of ``table``: each term's
        count in each document, CSR."""
        return self._counts(table, docs, False)

    def kept_terms(self, stats: TextStats) -> np.ndarray:
        """Which terms of ``stats`` estimation keeps (a boolean mask): those a vectoriser fitted
        on these documents keeps (df > 0, ``min_df``, ``max_df``, ``max_features``)."""
        return self._active(stats)

    def learned_idf(self, stats: TextStats, keep: np.ndarray) -> np.ndarray:
        """The idf of the kept terms learned from ``stats`` (scikit-learn's, ``smooth_idf``)."""
        return self._idf(stats, keep)

    def tfidf_rows(self, X: sp.csr_matrix, idf: np.ndarray) -> sp.csr_matrix:
        """Count rows over the kept terms as the tf-idf rows of unit L2 norm this model reads."""
        return self._weigh(X, idf)

    @property
    def counts_presence(self) -> bool:
        """Whether a term counts once per document (binary counts, Bernoulli, NBLR): the matrix
        of presences, not of counts, is what estimation and prediction read."""
        return self._presence

    def count_model(self) -> BaseNB:
        """An unfitted count model (``MultinomialNB``, ``BernoulliNB`` or ``ComplementNB``) with
        this model's estimation settings: fitted on the per-class sums of a count matrix's kept
        columns (``estimate_parameters`` then ``assign_parameters``), it scores rows of that
        matrix as this model scores the documents."""
        return self._inner()

    # ------------------------------------------------------------------ statistics
    def count_statistics(self, docs: Docs, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> TextStats:
        frozen = self._frozen_idf() if self.tfidf else None
        if frozen is not None:
            return self._count_frozen(docs, codes, n_classes, w, frozen)
        table: TermTable | None = None
        if self.n_features is None:
            terms, counts, dcounts, df, tf, table = learn_terms(docs.buf, docs.bounds, docs.table, codes, w, n_classes,
                                                                self._how(), lazy=True)
        else:
            terms, counts, dcounts, df, tf = hash_terms(docs.buf, docs.bounds, docs.table, codes, w, n_classes,
                                                        self.n_features, self._how())
        cc = np.bincount(codes, weights=w, minlength=n_classes).astype(np.float64)
        stats = TextStats(terms, cc, counts, dcounts, df, tf, float(docs.shape[0]), table)
        bound = plain_bound(w, max(float(np.sum(tf)), float(docs.shape[0])))
        if bound is None:  # weights whose float sums may round: the batch summed again exactly
            exact_counts(stats, self._counts(table if table is not None else self.term_table(None), docs, False),
                         codes, w)
        else:
            set_whole_bound(stats, bound)
        if self.tfidf:
            stats.weighted = self._tfidf_sums(stats, docs, codes, n_classes, w)
        return stats

    def partial_fit(self, X: Any, y: Any = None, classes: Any = None, sample_weight: Any = None) -> Self:
        """Add a chunk of documents (see :meth:`BaseNB.partial_fit`): the statistics and the
        parameters are final when it returns. A multinomial model over pairs whose classes
        the chunk keeps is updated from the chunk alone (``params_.plus``: the pairs it touches
        and the per-class base, exact); other chunks are added to the statistics, which are
        estimated again. For a long stream, :meth:`stream` counts each chunk in O(chunk)."""
        self._no_components("partial_fit")
        if self.model == "nblr":
            raise InvalidParameterError(_NOT_STATS.format(what="partial_fit"))
        self._check_streamable("partial_fit")
        if y is not None and "classes_" in self.__dict__ and isinstance(self.__dict__.get("params_"), TextParams):
            check_documents(X)  # before list(X): a number or None is refused, a dict not read as keys
            if not hasattr(X, "__len__"):
                X = list(X)  # read a one-shot iterable once, whichever path takes it
            if len(X) and self._plus_chunk(X, y, classes, sample_weight):  # (an empty chunk: the base)
                return self
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    def stream(self, *, fresh: bool = False) -> TextStream:
        """A stream of chunks counted in O(chunk) each (:class:`~nbayes.text._stream.TextStream`):
        ``add`` each chunk, then ``finish()`` makes the statistics and estimates once; the model
        is untouched until then. Equal to ``partial_fit`` over the chunks (``fresh``: ``fit``)."""
        return TextStream(self, fresh=fresh)

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        if self.model == "nblr":
            raise InvalidParameterError(_NOT_STATS.format(what="unlearn"))
        self.check_fitted()
        self._check_streamable("unlearn")
        return super().unlearn(X, y, sample_weight=sample_weight)

    def set_statistics(self, stats: Any, classes: np.ndarray, n_features: int, names: list[str] | None) -> None:
        # a term whose documents were all unlearned leaves the vocabulary (CORRECTNESS.md)
        super().set_statistics(stats.without_absent_terms(), classes, n_features, names)

    def merge(self, other: Any) -> Self:
        if self.model == "nblr" or getattr(other, "model", None) == "nblr":
            raise MergeError(_NOT_STATS.format(what="merge"))
        if isinstance(other, TextClassifier) and (self.tfidf or other.tfidf):
            self.check_fitted()
            other.check_fitted()
            for m in (self, other):
                frozen = m._frozen_idf() if m.tfidf else None
                if frozen is None or not m._frozen_stats(frozen):
                    raise MergeError(
                        "cannot merge tf-idf models with learned idfs: their idfs and norms come from "
                        "different corpora; freeze one idf (idf=...) for both to merge"
                    )
            if not (self.tfidf and other.tfidf and np.array_equal(self._terms, other._terms)
                    and np.array_equal(self._fitted_idf(), other._fitted_idf())):
                raise MergeError("cannot merge tf-idf models with different frozen idfs")
            for name in ("sublinear_tf", "binary"):
                if bool(getattr(self, name)) != bool(getattr(other, name)):
                    raise MergeError(f"cannot merge: parameter {name!r} differs and it shapes the tf-idf sums")
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
        self.check_fitted()
        if not self.tfidf:
            raise AttributeError("idf_ exists for tf-idf models (tfidf=True) only")
        return dict(zip(self._terms.tolist(), self._fitted_idf().tolist()))

    def _fitted_idf(self) -> np.ndarray:
        """The idf weights over the vocabulary of a model fitted with tfidf=True."""
        idf: np.ndarray | None = self._idf_weights
        if idf is None:  # tfidf switched on by set_params after a fit without it
            raise InvalidParameterError("tfidf=True, but this model was fitted with tfidf=False: fit it again")
        return idf

    def __repr__(self) -> str:
        if getattr(self, "idf", None) is None:
            return super().__repr__()
        shown = copy.copy(self)  # the mapping can hold 100,000 terms: name its size only
        try:
            shown.idf = _Shown(f"<idf of {len(self.idf)} terms>")
        except TypeError:
            return super().__repr__()
        return super(TextClassifier, shown).__repr__()

    # ------------------------------------------------------------------ NBLR
    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, X_unlabeled: Any = None
    ) -> Self:
        """Count (and for ``model="nblr"`` also train the logistic models); returns self.
        ``X_unlabeled``: documents without labels, learned from by EM with
        ``unlabeled_weight="auto"`` (multinomial and Bernoulli models): this model becomes the EM-completed model
        (see :meth:`BaseNB.fit` and docs/semi-supervised.md)."""
        if self.model != "nblr" or X_unlabeled is not None:
            return super().fit(X, y, sample_weight=sample_weight, X_unlabeled=X_unlabeled)
        self.check_params()
        docs, names = self.prepare_input(X, fitting=True)
        n = docs.shape[0]
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        classes, codes = classes_and_codes(y)
        if len(classes) < 2:
            raise DataError(f"y: model='nblr' needs at least 2 classes; the data has only {classes.tolist()}")
        stats = self.count_statistics(docs, codes, len(classes), w)
        derived = self.estimate_parameters(stats, docs.shape[1])  # vocabulary and term table, unassigned
        table, keep = derived.table, derived.keep
        rows = table.presence(docs.buf, docs.bounds, docs.table)  # from tokenising, no matrix round trip
        if self.n_features is not None and not keep.all():
            rows = keep_columns(rows, keep)
        dcount = stats.doc_count[:, keep] if not keep.all() else stats.doc_count
        if sp.issparse(dcount):
            dcount = dcount.toarray()
        weights, intercept = fit_nblr(rows, dcount, codes, w, alpha=float(self.alpha), C=float(self.C),
                                      beta=float(self.nb_interpolation))
        self.set_statistics(stats, classes, docs.shape[1], names)
        self._set_nblr(weights, intercept)
        return self

    def _set_nblr(self, weights: np.ndarray, intercept: np.ndarray) -> None:
        p = replace(self.params_, weights=np.ascontiguousarray(weights), intercept=np.array(intercept, dtype=float),
                    const=np.zeros(len(intercept)), pairs=None, fast=True, memo={})
        assign_parameters(self, p, p.stats)

    def to_state(self) -> dict[str, Any]:
        state = super().to_state()
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
    def from_state(cls, state: dict[str, Any]) -> "TextClassifier":
        model = super().from_state(state)
        if state["meta"].get("idf") == "frozen":
            model.idf = model.idf_
        if model.model == "nblr":  # one weight per term of the vocabulary (transform's columns) and class
            K, V = len(model.classes_), len(model.vocabulary_)
            check_shapes(state["arrays"], {"nblr/weights": (V, K), "nblr/intercept": (K,)})
            model._set_nblr(state["arrays"]["nblr/weights"], state["arrays"]["nblr/intercept"])
        return model

    @property
    def vocabulary_(self) -> dict[str, int]:
        """Term -> column of ``transform`` (the terms the estimation kept, sorted)."""
        self.check_fitted()
        return {t: i for i, t in enumerate(self._terms.tolist())}

    # ------------------------------------------------------------------ inference
    def joint_log_likelihood(self, docs: Docs) -> np.ndarray:
        # one read of params_: a partial_fit on another thread swaps them whole, never half
        p = self.params_
        jll = self._log_likelihood(docs, p) + p.intercept
        mix = self._mixture()
        return jll if mix is None else mix.class_logsumexp(jll)

    def log_likelihood(self, docs: Docs) -> np.ndarray:
        return self._log_likelihood(docs, self.params_)

    def _log_likelihood(self, docs: Docs, p: TextParams) -> np.ndarray:
        binary = self._presence
        if p.fast:
            if p.pairs is not None:
                assert isinstance(p.table, TermTable)  # pairs: vocabulary mode only
                scores: np.ndarray = p.table.score_pairs(docs.buf, docs.bounds, docs.table, p.pairs, binary)
            else:
                assert p.weights is not None  # (dense mode)
                scores = p.table.score(docs.buf, docs.bounds, docs.table, p.weights, binary)
            out: np.ndarray = scores + p.const
            return out
        X = self._counts(p.table, docs, binary)  # tf-idf, or -inf weights (alpha = 0): the sparse path
        inner: BaseNB = p.dense()["inner_"]
        if self.tfidf:
            if p.idf_weights is None:
                raise InvalidParameterError("tfidf=True, but this model was fitted with tfidf=False: fit it again")
            return inner.log_likelihood(self._weigh(X, p.idf_weights))
        if self.n_features is not None:
            X = X[:, p.keep]
        if self.model == "bernoulli":
            return inner.log_likelihood(Binary(X, None))
        return inner.log_likelihood(X)

    def _matrix(self, docs: Docs, binary: bool) -> sp.csr_matrix:
        return self._counts(self._table, docs, binary)


    def transform(self, texts: Any) -> sp.csr_matrix:
        """The document-term count matrix over the model's vocabulary (columns = ``vocabulary_``),
        or in hashing mode over the ``n_features`` buckets (scikit-learn's ``HashingVectorizer``
        with ``alternate_sign=False, norm=None``)."""
        self.check_fitted()
        docs, _ = self.prepare_input(texts, fitting=False)
        return self._matrix(docs, self.binary)

    # ------------------------------------------------------------------ explanations
    # one document's term occurrences (TokenExplanation), not BaseNB's per-feature Explanation of
    # rows: a deliberate public difference that typing calls an incompatible override
    def explain(self, text: Any) -> TokenExplanation:  # type: ignore[override]
        """Each term occurrence of ``text``, in order, with its contribution to the log-odds of
        the predicted class against the runner-up: see :class:`TokenExplanation`."""
        self.check_fitted()
        self._no_explanation("explain")
        return explain_tokens(self, text)

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        names = self._terms.tolist()
        if self.n_features is not None:  # hashing keeps no tokens: buckets are named by number
            names = [f"#{b}" for b in names]
        return log_ratio_scores(self._class_rows(self.inner_.feature_count_), self.alpha, True), names

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> TextStats:
        return TextStats.from_arrays(arrays)


class _Shown:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text
