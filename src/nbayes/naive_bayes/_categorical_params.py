"""CategoricalNB's parameters as a value and the pure function that estimates them."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._validation import check_probability_vector, encode_labels, union_labels
from ..errors import InvalidParameterError
from ..stats import CategoricalStats
from .params import Params, PriorSettings, estimate_prior

__all__ = ["CategoricalParams", "CategoricalSettings", "estimate", "lay_on", "m_prior"]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CategoricalSettings:
    """What categorical estimation reads: ``alpha`` (``force_alpha`` applied), the m-estimate's
    ``m`` and its prior ``p`` (CategoricalNB's setting, over ``n_declared`` declared
    features), the ``declared`` values per feature (None: learned), ``min_categories`` per
    feature, ``handle_unknown`` and the prior's settings."""

    alpha: float
    m: float | None
    p: Any
    n_declared: int
    declared: list[np.ndarray | None]
    min_categories: np.ndarray
    handle_unknown: str
    prior: PriorSettings


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CategoricalParams(Params):
    """:class:`~nbayes.naive_bayes.CategoricalNB`'s parameters, per feature j (lists of
    n_features arrays): ``categories`` its values (n_categories_j,), ``category_count`` the
    counts (n_classes, n_categories_j), ``feature_log_prob`` log theta_cjv (n_classes,
    n_categories_j), ``tables`` what predict looks up ([values..., unseen, missing] columns);
    ``n_categories`` : ndarray of shape (n_features,) the J_j; with the prior part."""

    categories: list[np.ndarray]
    category_count: list[np.ndarray]
    feature_log_prob: list[np.ndarray]
    n_categories: np.ndarray
    tables: list[np.ndarray]


def estimate(stats: CategoricalStats, s: CategoricalSettings) -> CategoricalParams:
    """Categorical parameters of ``stats``: theta_cjv = (n_cjv + alpha) / (n_cj + alpha J_j)
    (chapter 002 eq. 7; eq. 6 at alpha = 0), or the m-estimate (n_cjv + m p_v) / (n_cj + m)
    (slides 000), and the unseen value's term (CORRECTNESS.md)."""
    n_features = len(stats.categories)
    values, logps, unseen, counts, padded, n_cats = [], [], [], [], [], []
    for j in range(n_features):
        vals, cnt = stats.categories[j], stats.counts[j]
        keep = cnt.sum(axis=0) > 0
        vals, cnt = vals[keep], cnt[:, keep]
        pad = None
        declared_j = s.declared[j]
        if declared_j is not None:
            vals, cnt = lay_on(vals, cnt, declared_j)
        elif s.min_categories[j] > len(vals):
            vals, cnt, pad = _pad_codes(vals, cnt, int(s.min_categories[j]))
        J = max(len(vals), int(s.min_categories[j]))
        given = m_prior(s.p, s.n_declared, j, vals) if s.m is not None else None
        logp, un = _estimate_feature(s, given, cnt, J)
        values.append(vals)
        counts.append(cnt)
        logps.append(logp)
        unseen.append(un)
        padded.append(pad)
        n_cats.append(J)
    prior = estimate_prior(stats.class_count, replace(s.prior, components=None))["class_log_prior"]
    # per feature, the lookup table used at predict: [values..., unseen, missing]; the codes
    # min_categories adds were never seen, so they take the unseen value's term
    tables = []
    for lp, u, pad in zip(logps, unseen, padded):
        un = np.zeros(len(prior)) if u is None else u
        if pad is not None:
            lp = np.where(pad, un[:, None], lp)
        tables.append(np.column_stack([lp, un, np.zeros(len(prior))]))
    return CategoricalParams(
        categories=values, category_count=counts, feature_log_prob=logps,
        n_categories=np.array(n_cats, dtype=np.int64), tables=tables, class_log_prior=prior, intercept=prior,
    )


def _estimate_feature(
    s: CategoricalSettings, given: np.ndarray | None, cnt: np.ndarray, J: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """log theta_cjv for the active values, and the unseen-value term (or None)."""
    K = cnt.shape[0]
    N = cnt.sum(axis=1, keepdims=True)
    if s.m is not None:
        m = s.m
        if given is not None:
            pv = given
            p_unseen = None
        else:
            pv = np.full(cnt.shape[1], 1.0 / J) if J else np.zeros(0)
            p_unseen = 1.0 / J if J else None
        num = cnt + m * pv
        den = N + m
        un_num = None if p_unseen is None else np.full((K, 1), m * p_unseen)
    else:
        a = s.alpha
        num = cnt + a
        den = N + a * J
        un_num = np.full((K, 1), a) if a > 0 else None
    empty = den <= 0  # a class with no observed row and no smoothing: uniform 1/J
    safe = np.where(empty, 1.0, den)
    with np.errstate(divide="ignore"):
        logp = np.where(empty, -np.log(max(J, 1)), np.log(num) - np.log(safe))
        unseen = None
        if un_num is not None and s.handle_unknown == "smooth":
            unseen = np.where(empty, -np.log(max(J, 1)), np.log(un_num) - np.log(safe))[:, 0]
    return logp, unseen


def m_prior(p: Any, n_declared: int, j: int, values: np.ndarray) -> np.ndarray | None:
    """The m-estimate's prior p_v of feature j over its declared ``values`` (the
    m-estimate of Mitchell's slides, seeds/000): None for the uniform 1/J, else checked once: finite, non-negative and
    summing to 1 (CORRECTNESS: "probability vectors"; not renormalised). Each entry of ``p`` is a
    sequence in ``categories[j]`` order or a mapping from category to probability."""
    if p is None:
        return None
    if len(p) != n_declared:
        raise InvalidParameterError(
            f"parameter 'p' has {len(p)} entries; expected one per feature "
            f"({n_declared}, as 'categories'), None for the uniform prior"
        )
    if p[j] is None:
        return None
    return check_probability_vector(f"p[{j}]", p[j], values, sums_to_one=True, of="categories")


def _pad_codes(vals: np.ndarray, cnt: np.ndarray, J: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``min_categories`` on integer codes: add the smallest non-negative codes not seen, with
    zero counts, until there are J values (scikit-learn's codes 0..J-1 when the seen codes are
    among them). Values that are not integers have no codes to add: unchanged (J alone is
    floored). Returns the values, the counts and the mask of added values."""
    if vals.dtype.kind in "iu":
        ints = True
    elif vals.dtype.kind == "f":
        ints = bool(np.all(np.isfinite(vals) & (vals == np.round(vals))))
    elif vals.dtype.kind == "O":
        ints = all(isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_) for v in vals.tolist())
    else:
        ints = False
    if not ints:
        return vals, cnt, None
    seen = set(vals.tolist())
    extra: list[int] = []
    code = 0
    while len(seen) + len(extra) < J:
        if code not in seen:
            extra.append(code)
        code += 1
    if vals.dtype.kind == "O" or not len(vals):
        add = np.empty(len(extra), dtype=object if len(vals) else np.int64)
        add[:] = extra
    else:
        add = np.asarray(extra, dtype=vals.dtype)
    merged = union_labels(vals, add) if len(vals) else add
    pos, _ = encode_labels(vals, merged) if len(vals) else (np.zeros(0, np.intp), None)
    out = np.zeros((cnt.shape[0], len(merged)))
    out[:, pos] = cnt
    pad = np.ones(len(merged), dtype=bool)
    pad[pos] = False
    return merged, out, pad


def lay_on(vals: np.ndarray, cnt: np.ndarray, declared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lay the counts over the declared values (every seen value is among them)."""
    pos, _ = encode_labels(vals, declared) if len(vals) else (np.zeros(0, np.intp), None)
    out = np.zeros((cnt.shape[0], len(declared)))
    out[:, pos] = cnt
    return declared, out

