"""Token-level explanations of a text model: each term occurrence's share of the log-odds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._frames import explanation_frame
from .._validation import check_document
from ._headers import blank_headers, header_fields

from .params import TextParams

if TYPE_CHECKING:  # the classifier imports this module
    from .classifier import TextClassifier

#: scikit-learn's default token pattern; the kernels' word table is built from ``re`` itself
_WORDS = re.compile(r"(?u)\b\w\w+\b")
#: scikit-learn's whitespace normalisation before character n-grams
_SPACES = re.compile(r"\s\s+")


@dataclass
class TokenExplanation:
    """Each term occurrence of one document, in order, with its contribution to the log-odds
    of the predicted class against the runner-up; ``sum(contributions) + baseline`` is the
    difference of their joint log-probabilities (``predict_joint_log_proba``; for
    ``model="nblr"`` the decision values).

    A term is a word or, with ``ngram_range``, a word n-gram: an n-gram is its own entry,
    shown as the term it is counted as (its words, stop words dropped, joined by one space,
    as in ``vocabulary_``), with the span from its first word's start to its last word's end.
    Entries are ordered by the last word of each term, shorter n-grams first. With
    ``analyzer="char"`` / ``"char_wb"`` an entry is a character n-gram, shown as counted (runs of
    whitespace as one space, ``char_wb``'s padding spaces included), in scikit-learn's order
    (``char``: by length, then position; ``char_wb``: by word, length, position), its span the
    stretch of the text it covers (a padding space covers nothing). ``tokens`` are
    lower-cased (as counted) when ``lowercase``; ``spans`` index the text as given, also where
    lower-casing changes its length.

    A contribution is the occurrence's weighted count times the term's weight difference
    between the two classes. The weighted count is 1 for counts; for presence models
    (``binary``, Bernoulli, NBLR) 1 for a term's first occurrence and 0 for its repeats (also
    for a hashed term whose bucket an earlier term of the document took); with tf-idf the
    term's tf-idf value in the document (``TfidfVectorizer``'s row), shared equally among its
    occurrences. A word outside the vocabulary (or pruned by ``min_df`` / ``max_df`` /
    ``max_features``) contributes 0. ``baseline`` holds the rest: the difference of the log
    priors (intercepts), and for Bernoulli the absent-term totals.
    """

    predicted: Any
    runner_up: Any
    tokens: list[str]
    spans: list[tuple[int, int]]
    contributions: np.ndarray
    baseline: float

    def to_frame(self, library: str | None = None) -> Any:
        """A frame with a row per term occurrence, in the schema every explanation shares
        (``nbayes._frames.EXPLANATION_COLUMNS``: row, term, start, end, contribution,
        predicted, runner_up, baseline); pandas if installed, else polars (``library``)."""
        return explanation_frame([(self.predicted, self.runner_up, self.baseline, self.tokens, self.spans,
                                   self.contributions)], library)


def explain_tokens(model: TextClassifier, text: Any) -> TokenExplanation:
    """The :class:`TokenExplanation` of ``text`` (one document) under the fitted ``model``."""
    check_document(text)
    docs, _ = model.prepare_input([text], fitting=False)
    p = model.params_  # read once: the parameters of one version throughout
    joint = model._log_likelihood(docs, p)[0] + p.intercept  # (one component per class: no mixture)
    order = np.argsort(-joint, kind="stable")
    a, b = order[0], order[1] if len(order) > 1 else order[0]
    tok = p.table.tokens(docs.buf, docs.bounds, docs.table)
    ids = tok[:, 1]
    share = _weighted_counts(model, p, docs, ids)
    contrib = np.zeros(len(ids))
    live = share != 0
    if live.any():
        W = p.weights if p.weights is not None else p.dense()["_weights"]
        wa, wb = W[ids[live], a], W[ids[live], b]
        with np.errstate(invalid="ignore"):
            diff = np.where(wa == wb, 0.0, wa - wb)  # -inf - -inf: the same impossible term
        contrib[live] = share[live] * diff
    lowered = docs.buf[docs.bounds[0] : docs.bounds[1]]
    raw = lowered.astype(np.uint32).tobytes().decode("utf-32-le", errors="surrogatepass")
    how = model._how()
    spans = [(int(s), int(e)) for s, e in tok[:, 2:4].tolist()]
    if how.analyzer != "word":  # the kernel lists the grams in scikit-learn's order, as this does
        tokens = char_grams(raw, how.analyzer, how.lo, how.hi)
    else:
        stop = set(how.stop_words or ())
        tokens = [" ".join(w for w in _WORDS.findall(raw[s:e]) if w not in stop) for s, e in spans]
    baseline = float(p.intercept[a] - p.intercept[b] + p.const[a] - p.const[b])
    if model.lowercase:  # spans into the text as given, not its lower-cased form
        original = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else str(text)
        keep = header_fields(model.headers)
        if keep is not None:  # the text the tokeniser read: header characters blanked, in place
            original = blank_headers(original, keep)
        spans = _original_spans(original, spans)
    return TokenExplanation(model.classes_[a], model.classes_[b], tokens, spans, contrib, baseline)


def char_grams(text: str, analyzer: str, lo: int, hi: int) -> list[str]:
    """The character n-grams of ``text`` (already lower-cased if so set) in scikit-learn's order:
    its ``_char_ngrams`` (``analyzer="char"``) or ``_char_wb_ngrams`` (``"char_wb"``). The
    Python twin of :mod:`nbayes._kernels.text_chars`, for one document's explanation."""
    text = _SPACES.sub(" ", text)
    if analyzer == "char":
        return [text[i : i + n] for n in range(lo, min(hi, len(text)) + 1) for i in range(len(text) - n + 1)]
    out: list[str] = []
    for word in text.split():
        w = f" {word} "
        for n in range(lo, hi + 1):
            if n >= len(w):  # the padded word itself, once; longer n add nothing
                out.append(w)
                break
            out.extend(w[i : i + n] for i in range(len(w) - n + 1))
    return out


def _weighted_counts(model: TextClassifier, p: TextParams, docs: Any, ids: np.ndarray) -> np.ndarray:
    """Each occurrence's share of its term's value in the document vector the model scores:
    1 per occurrence (counts), 1 for the first (presence), the tf-idf value split equally."""
    known = ids >= 0
    share = known.astype(np.float64)
    if model.tfidf:  # (binary tf-idf too: the value of the term, split over its occurrences)
        if known.any():
            counts = np.bincount(ids[known], minlength=len(p.vocab)).astype(np.float64)
            idf = p.idf_weights if p.idf_weights is not None else model._fitted_idf()  # (None: it raises)
            X = model._weigh(model._counts(p.table, docs, False), idf)
            value = np.asarray(X.todense()).ravel()
            share[known] = value[ids[known]] / counts[ids[known]]
    elif model._presence:
        _, first = np.unique(ids, return_index=True)
        once = np.zeros(len(ids), dtype=bool)
        once[first] = True
        share[~once] = 0.0
    return share


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
