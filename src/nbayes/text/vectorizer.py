"""Vectorizer: documents to a sparse document-term matrix, as scikit-learn's vectorisers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._estimator import BaseEstimator
from .._validation import check_documents
from ..errors import DataError, InvalidParameterError, NotFittedError
from ..stats.text import TextStats
from .settings import TextSettings
from .vocab import AnyTerms, HashedTerms, TermTable, hash_terms, learn_terms


class Vectorizer(TextSettings, BaseEstimator):
    """The matrix scikit-learn's ``CountVectorizer`` (default), ``TfidfVectorizer``
    (``tfidf=True``: ``sublinear_tf``, ``smooth_idf``, ``use_idf``, ``binary``, unit L2 rows) or ``HashingVectorizer``
    (``n_features``, as ``alternate_sign=False, norm=None``) would give for the same settings:
    same vocabulary, same columns, same values, for word or (``analyzer="char"`` /
    ``"char_wb"``) character n-grams. ``headers`` reads e-mail / news messages as
    :class:`nbayes.TextClassifier` does. Tokenising, n-grams, stop words and counting run
    in the compiled kernels of :class:`nbayes.TextClassifier`, which needs no matrix at all.

    >>> v = Vectorizer(ngram_range=(1, 2)).fit(["the cat sat", "the cat ran"])
    >>> v.get_feature_names_out().tolist()
    ['cat', 'cat ran', 'cat sat', 'ran', 'sat', 'the', 'the cat']
    >>> v.transform(["a cat sat"]).toarray().tolist()
    [[1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]]
    """

    def __init__(
        self,
        *,
        headers: Any = None,
        lowercase: bool = True,
        analyzer: str = "word",
        ngram_range: tuple[int, int] = (1, 1),
        stop_words: Any = None,
        min_df: float = 1,
        max_df: float = 1.0,
        max_features: int | None = None,
        binary: bool = False,
        n_features: int | None = None,
        tfidf: bool = False,
        sublinear_tf: bool = False,
        smooth_idf: bool = True,
        use_idf: bool = True,
    ) -> None:
        self.headers = headers
        self.lowercase = lowercase
        self.analyzer = analyzer
        self.ngram_range = ngram_range
        self.stop_words = stop_words
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.binary = binary
        self.n_features = n_features
        self.tfidf = tfidf
        self.sublinear_tf = sublinear_tf
        self.smooth_idf = smooth_idf
        self.use_idf = use_idf

    def fit(self, texts: Any, y: Any = None) -> "Vectorizer":
        """Learn the vocabulary (and idf) of ``texts``; ``y`` is ignored."""
        self._check_text_params()
        docs, _ = self.prepare_input(texts, fitting=True)
        n = docs.shape[0]
        codes = np.zeros(n, dtype=np.int64)
        table: AnyTerms
        if self.n_features is None:
            terms, counts, dcounts, df, tf, table = learn_terms(docs.buf, docs.bounds, docs.table, codes, None, 1, self._how())
        else:
            how = self._how()
            terms, counts, dcounts, df, tf = hash_terms(docs.buf, docs.bounds, docs.table, codes, None, 1,
                                                        self.n_features, how)
            table = HashedTerms(self.n_features, how)
        stats = TextStats(terms, np.array([float(n)]), counts, dcounts, df, tf, float(n))
        terms = stats.terms
        keep = self._active(stats)
        if not keep.any():  # a matrix without columns: refused, as scikit-learn's vectorisers
            raise DataError(
                "texts: after pruning, no terms remain (empty vocabulary); try a lower min_df or a "
                "higher max_df, or documents with words of two or more characters"
            )
        if self.n_features is None and not keep.all():
            table = TermTable(terms[keep], self._how())
        self.terms_ = terms[keep]
        self.idf_ = self._idf(stats, keep) if self.tfidf else None
        self._table = table
        return self

    def transform(self, texts: Any) -> sp.csr_matrix:
        """The document-term matrix of ``texts`` over the fitted vocabulary."""
        if not hasattr(self, "_table"):
            raise NotFittedError("this Vectorizer is not fitted yet; call fit first")
        docs, _ = self.prepare_input(texts, fitting=False)
        X = self._counts(self._table, docs, self.binary)
        if not self.tfidf:
            return X
        if self.idf_ is None:  # tfidf switched on by set_params after a fit without it
            raise InvalidParameterError("tfidf=True, but this Vectorizer was fitted with tfidf=False: fit it again")
        return self._weigh(X, self.idf_)

    def fit_transform(self, texts: Any, y: Any = None) -> sp.csr_matrix:
        """``fit(texts).transform(texts)``."""
        check_documents(texts)  # before list(texts): a dict is not read as its keys, nor a set in any order
        texts = list(texts) if isinstance(texts, Iterator) else texts  # read twice: an iterator once, here
        return self.fit(texts).transform(texts)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The column names: the vocabulary, or in hashing mode the bucket numbers."""
        out = np.empty(len(self.terms_), dtype=object)
        out[:] = [str(t) for t in self.terms_.tolist()]
        return out

    @property
    def vocabulary_(self) -> dict[Any, int]:
        """Term -> column (vocabulary mode)."""
        return {t: i for i, t in enumerate(self.terms_.tolist())}
