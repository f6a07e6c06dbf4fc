"""Several mixture components per class (Nigam, McCallum, Thrun & Mitchell 2000, section 5.3).

With ``n_components`` M_c for class c, the class is a mixture of M_c components of the model's
own kind (multinomials, or products of Bernoullis): P(x | c) = sum_m P(m | c) P(x | c, m). The
statistics (and ``feature_log_prob_``, ``feature_count_``) have one row per component, class by
class in the order of ``classes_`` (M_0 rows of class 0, then M_1 of class 1, ...), so
``np.repeat(classes_, n_components)`` names each row's class. The joint of a class is the
log-sum-exp of its components' joints, log P(x, c) = logsumexp_m [log P(c) + log P(m | c) +
log P(x | c, m)]; the priors are estimated as

* P(c): the model's usual class prior of the class totals (``fit_prior``, ``class_prior``,
  ``class_alpha``);
* P(m | c) = (N_cm + class_alpha) / (N_c + M_c class_alpha), uniform when that is 0 / 0,

the posterior modes of a Dirichlet(class_alpha + 1) prior on each, so MAP-EM stays monotone.
The components are fitted by EM (:mod:`nbayes.naive_bayes._em`, through the wrapper
:class:`nbayes.EM`); the layout is fitted state of the model (``_layout``, saved in its file),
not a constructor setting. One component per class is the ordinary model, on the ordinary code
path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._math import logsumexp
from .._validation import check_number
from ..errors import InvalidParameterError

__all__ = ["Components", "check_components", "is_mixture"]


def is_mixture(spec: Any) -> bool:
    """Whether ``n_components`` asks for more than one component in some class."""
    if isinstance(spec, int | np.integer) and not isinstance(spec, bool | np.bool_):
        return int(spec) != 1
    if isinstance(spec, str | bytes | bool | np.bool_ | float | np.floating) or spec is None:
        return True  # not a valid value: check_components says why
    try:
        return bool(np.any(np.asarray(spec) != 1))
    except (TypeError, ValueError):
        return True  # not a valid value: check_components says why


def check_components(spec: Any, n_init: Any, random_state: Any) -> None:
    """``n_components``: an integer >= 1, or a sequence of them (one per class, in the order of
    ``classes_``); ``n_init``: an integer >= 1; ``random_state``: None or an integer >= 0."""
    check_number("n_init", n_init, low=1, integer=True)
    bad = (
        f"parameter 'n_components' must be an integer >= 1, or a sequence of integers >= 1 (one "
        f"per class, in the order of classes_), got {spec!r}"
    )
    if isinstance(spec, bool | np.bool_):
        raise InvalidParameterError(bad)
    if isinstance(spec, int | np.integer):
        if int(spec) < 1:
            raise InvalidParameterError(bad)
    else:
        try:
            arr = np.asarray(spec)
        except (TypeError, ValueError):
            raise InvalidParameterError(bad) from None
        if arr.ndim != 1 or len(arr) == 0 or arr.dtype.kind not in "iu" or np.any(arr < 1):
            raise InvalidParameterError(bad)
    if random_state is not None and (
        isinstance(random_state, bool | np.bool_)
        or not isinstance(random_state, int | np.integer)
        or int(random_state) < 0
    ):
        raise InvalidParameterError(
            f"parameter 'random_state' must be None or an integer >= 0 (the seed of the components' "
            f"random start), got {random_state!r}"
        )


@dataclass(frozen=True)
class Components:
    """The layout of the components: ``sizes[c]`` components for class c, rows class by class."""

    sizes: np.ndarray

    @classmethod
    def of(cls, spec: Any, *, n_classes: int | None = None, n_rows: int | None = None) -> "Components | None":
        """The layout for ``n_components=spec`` with ``n_classes`` classes (or, for an integer
        ``spec``, statistics of ``n_rows`` rows); None for one component per class."""
        if not is_mixture(spec):
            return None
        if isinstance(spec, int | np.integer):
            if n_classes is not None:
                K = n_classes
            else:
                assert n_rows is not None, "Components.of: give n_classes or n_rows"
                K = int(n_rows) // int(spec)
            return cls(np.full(K, int(spec), dtype=np.intp))
        sizes = np.asarray(spec, dtype=np.intp)
        if n_classes is not None and len(sizes) != n_classes:
            raise InvalidParameterError(
                f"parameter 'n_components' has {len(sizes)} entries but the data has {n_classes} "
                "classes; give one number per class (in the order of classes_), or one integer"
            )
        return cls(sizes)

    @property
    def total(self) -> int:
        return int(self.sizes.sum())

    @property
    def starts(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.intp)

    @property
    def owner(self) -> np.ndarray:
        """The class (index) of each component."""
        return np.repeat(np.arange(len(self.sizes)), self.sizes)

    def class_sums(self, a: np.ndarray) -> np.ndarray:
        """Rows of ``a`` (one per component) summed per class."""
        return np.add.reduceat(np.asarray(a, dtype=np.float64), self.starts, axis=0)

    def class_logsumexp(self, jll: np.ndarray) -> np.ndarray:
        """(n, components) joint log-likelihoods -> (n, classes): log-sum-exp within each class
        (-inf where every component of the class is impossible)."""
        jll = np.asarray(jll, dtype=np.float64)
        out = np.full((jll.shape[0], len(self.sizes)), -np.inf)
        for c, (s, m) in enumerate(zip(self.starts.tolist(), self.sizes.tolist())):
            out[:, c] = _logsumexp_rows(jll[:, s : s + m])
        return out

    def log_weights(self, count: np.ndarray, class_alpha: float) -> np.ndarray:
        """log P(m | c) per component from the components' weights ``count`` (log P(c) is the
        model's class prior of :meth:`class_sums`)."""
        totals = self.class_sums(count)
        a = float(class_alpha)
        num = np.asarray(count, dtype=np.float64) + a
        den = (totals + self.sizes * a)[self.owner]
        with np.errstate(divide="ignore"):
            log_w = np.where(den > 0, np.log(np.where(den > 0, num, 1.0)) - np.log(np.where(den > 0, den, 1.0)),
                             -np.log(self.sizes[self.owner].astype(np.float64)))
        return log_w

    def random_split(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(n, components): each row's unit weight spread over its class's components at random,
        uniformly on the simplex (Dirichlet(1, ..., 1)); one draw of n x components exponentials."""
        E = rng.exponential(size=(len(codes), self.total))
        E[self.owner[None, :] != np.asarray(codes)[:, None]] = 0.0
        split: np.ndarray = E / E.sum(axis=1, keepdims=True)
        return split


def _logsumexp_rows(a: np.ndarray) -> np.ndarray:
    return logsumexp(a, axis=1)
