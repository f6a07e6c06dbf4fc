"""TextClassifier's fitted parameters as one immutable value (docs/architecture.md, "Params
values and estimate").

:class:`TextParams` is what :meth:`~nbayes.text.TextClassifier.estimate_parameters` makes from
the statistics and the model's settings, and nothing else: the kept vocabulary and its term
table, the per-term weights (a dense terms x classes table, or the (class, term) pairs seen
plus a weight per class, :class:`~nbayes.text.vocab.Pairs`), the constant and the prior part.
The model holds it as ``params_`` beside ``stats_`` (the statistics it was made from, also
``params_.stats``) and swaps both at the end of every ``fit`` / ``partial_fit`` / ``unlearn`` /
``set_statistics``; no attribute read estimates or changes anything.

Over pairs, the dense parameters (``feature_log_prob_``, ``inner_``, the weights table) are not
made by estimation: :meth:`TextParams.dense` derives them from the value when first read, and
keeps them inside the value (a memo: the same numbers whoever reads first, threads racing on it
at worst compute it twice, and the model is never written).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..naive_bayes.params import Params, PriorAttributes
from ._pairs import Pairs

__all__ = ["TextAttributes", "TextDelta", "TextParams"]

#: the parameters derived over pairs when read (TextParams.dense)
DENSE = ("inner_", "_weights", "feature_log_prob_")


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class TextParams(Params):
    """:class:`~nbayes.text.TextClassifier`'s parameters.

    ``vocab`` the kept terms, sorted (code points or strings; bucket numbers in hashing mode);
    ``keep`` : bool ndarray of shape (n_terms of ``stats``,), the terms estimation kept;
    ``table`` the lookup of the kept terms in documents; ``idf_weights`` the idf of tf-idf
    models (else None); ``pairs`` the weights over the pairs seen (else None) or ``weights``
    : ndarray of shape (n_kept_terms, n_classes) (with ``inner`` the fitted count model and
    ``feature_log_prob`` of shape (n_classes, n_kept_terms)); ``const`` : ndarray of shape
    (n_classes,) added to every document's score (Bernoulli's sum of log(1 - p)); ``fast``
    whether the compiled scorer applies (finite weights, no tf-idf); ``stats`` the statistics
    they were estimated from and ``settings`` an unfitted model holding the settings used (what
    :meth:`dense` and :meth:`plus` read)."""

    vocab: Any
    keep: np.ndarray
    table: Any
    const: np.ndarray
    fast: bool
    stats: Any
    settings: Any
    idf_weights: np.ndarray | None = None
    pairs: Pairs | None = None
    weights: np.ndarray | None = None
    feature_log_prob: np.ndarray | None = None
    inner: Any = None
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for name in ("class_log_prior", "intercept", "component_log_weight", "keep", "const", "idf_weights",
                     "weights", "feature_log_prob"):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                value.setflags(write=False)

    def __eq__(self, other: object) -> bool:
        """Equal when the parameters are (the statistics, settings and memo are not compared)."""
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = self.attributes(), other.attributes()
        return mine.keys() == theirs.keys() and all(_equal(mine[k], theirs[k]) for k in mine)

    __hash__ = None

    def attributes(self) -> dict[str, Any]:
        """The parameters by the model's attribute names (those set), for the overflow checks."""
        out: dict[str, Any] = {"class_log_prior_": self.class_log_prior, "_intercept": self.intercept,
                               "_keep": self.keep, "_const": self.const}
        if self.component_log_weight is not None:
            out["component_log_weight_"] = self.component_log_weight
        for key, value in (("_weights", self.weights), ("feature_log_prob_", self.feature_log_prob),
                           ("_idf_weights", self.idf_weights)):
            if value is not None:
                out[key] = value
        if self.pairs is not None:
            out["pairs/delta"], out["pairs/base"] = self.pairs.delta, self.pairs.base
        return out

    def dense(self) -> dict[str, Any]:
        """``inner_``, ``_weights`` and ``feature_log_prob_``: the value's own when estimation
        made them (dense mode), else derived from the statistics over the kept terms (the
        estimation of the dense mode, the same numbers) on the first call and kept in the value."""
        if self.pairs is None and self.inner is not None:
            return {"inner_": self.inner, "_weights": self.weights, "feature_log_prob_": self.feature_log_prob}
        done = self.memo.get("dense")
        if done is None:
            part = self.settings.dense_part(self.stats, self.keep)
            # (two threads reading at once may both compute it: the first one kept is what all read)
            done = self.memo.setdefault("dense", part)
        return dict(done)

    def plus(self, delta: Any) -> TextParams | None:
        """The parameters of ``stats + delta`` (a :class:`TextDelta`), computed from the change
        (:func:`nbayes.text.online.plus`, through the settings' model: the pairs the delta touches and the per-class base),
        with the summed statistics as their ``stats``; None when that path does not apply (then
        estimation runs on the sum). Exact: equal to estimating the sum, bit for bit."""
        out: TextParams | None = self.settings.parameters_plus(self, delta)
        return out


@dataclass(frozen=True, slots=True)
class TextDelta:
    """An online update of a text model's statistics: ``stats`` (a
    :class:`~nbayes.stats.text.TextStats` over its own terms) of the labels ``classes`` (a
    subset of the model's, in their own order)."""

    stats: Any
    classes: np.ndarray


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b, equal_nan=np.asarray(a).dtype.kind in "fc"))
    return bool(a is b or a == b)


def _params(model: Any) -> TextParams:
    p = model.__dict__.get("params_")
    if p is None:
        raise AttributeError("params_")  # (not fitted: the estimator's __getattr__ says so)
    assert isinstance(p, TextParams)
    return p


def _field(name: str, doc: str) -> property:
    return property(lambda self: getattr(_params(self), name), doc=doc)


def _derived(name: str, doc: str) -> property:
    def get(self: Any) -> Any:
        p = _params(self)
        own = {"_weights": p.weights, "feature_log_prob_": p.feature_log_prob, "inner_": p.inner}[name]
        return own if own is not None else p.dense()[name]

    return property(get, doc=doc)


class TextAttributes(PriorAttributes):
    """TextClassifier's fitted attributes, read from ``params_`` (never estimated on read)."""

    _vocab = _field("vocab", "The kept vocabulary as estimation left it (read ``_terms`` for its strings).")
    _keep = _field("keep", "bool ndarray of shape (n_terms,): the terms of ``stats_`` estimation kept.")
    _idf_weights = _field("idf_weights", "The idf of a tf-idf model over the kept terms, else None.")
    _table = _field("table", "The lookup of the kept terms in documents.")
    _pairs = _field("pairs", "The weights over the (class, term) pairs seen, or None (dense weights).")
    _const = _field("const", "ndarray of shape (n_classes,): added to every document's score.")
    _fast = _field("fast", "Whether the compiled scorer applies.")
    _weights = _derived("_weights", "ndarray of shape (n_kept_terms, n_classes): per-term weights.")
    feature_log_prob_ = _derived(
        "feature_log_prob_", "ndarray of shape (n_classes, n_kept_terms): log P(term | class) of the count model.")
    inner_ = _derived("inner_", "The fitted count model (MultinomialNB, BernoulliNB or ComplementNB) over the kept terms.")


def _forget_empty(derived: dict[str, Any], class_count: np.ndarray) -> dict[str, np.ndarray]:
    """A class without weight (all its documents unlearned, or declared and never seen) is gone
    (CORRECTNESS.md): log prior and intercept -inf in every model, whatever the prior settings,
    so its probability is 0 and it is never predicted."""
    gone = class_count <= 0
    if not gone.any():
        return {}
    return {key: np.where(gone, -np.inf, derived[key]) for key in ("class_log_prior_", "_intercept")}
