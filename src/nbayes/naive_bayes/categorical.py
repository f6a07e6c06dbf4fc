"""Categorical Naive Bayes: discrete attributes with values of any kind (chapter 002, slides 000)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._kernels import threads
from .._kernels.categorical import DTYPES, count_values, value_range
from .._validation import check_choice, check_number, encode_labels, encode_values, union_labels
from ..errors import DataError, InvalidParameterError
from ..stats import CategoricalStats
from ._base import BaseNB
from ._categorical_params import CategoricalParams, CategoricalSettings, estimate, m_prior
from . import _leave_one_out as leave_one_out
from .params import PriorAttributes, fitted
from .discrete import dirichlet_log_density
from .._tables import Table, distinct, read_table

#: widest value range counted by direct indexing; wider integer columns take the sort path
MAX_DIRECT_WIDTH = 1 << 16


class CategoricalNB(leave_one_out.LeaveOneOut, PriorAttributes, BaseNB):
    """Naive Bayes over discrete attributes whose values may be anything (strings, numbers,
    booleans, objects; NaN/None/NA are missing).

    theta_cjv = (n_cjv + alpha) / (n_cj + alpha J_j)  (eq. 7 of chapter 002; Laplace at
    alpha = 1, the MLE of eq. 6 at alpha = 0), or with ``m`` set the m-estimate of slides 000,
    (n_cjv + m p_v) / (n_cj + m), p uniform (1/J_j) unless given per value in ``p``. J_j is the
    number of values of feature j seen in training (or declared in ``categories``, or
    ``min_categories``). n_cj counts only the rows where feature j is observed.

    A value never seen in training gets the smoothed zero count, alpha / (n_cj + alpha J_j)
    (``handle_unknown="smooth"``), or is left out of the product (``"ignore"``, and always with
    no smoothing). The class prior is the empirical one, eq. 9 smoothed with ``class_alpha``, or
    ``class_prior``.

    Rows without labels: ``fit(X, y, X_unlabeled=U)`` trains by EM (Nigam et al. 2000) with
    :class:`nbayes.EM`'s defaults but ``unlabeled_weight="auto"`` (the unlabelled rows' weight
    chosen by cross-validation on the labelled rows, 0 included; at most 100 steps) and leaves
    this model the EM-completed model (its statistics include the expected counts, and
    ``n_iter_`` / ``em_log_likelihood_`` report the run); for other EM settings
    (``unlabeled_weight="cv"``, ``unlabeled_label``) wrap it:
    ``nbayes.EM(model, ...)``. See docs/semi-supervised.md.

    PlayTennis (slides 000): the MLE joint scores of (sunny, cool, high, strong) are .0053 for
    yes and .0206 for no.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weight of the training rows of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        log P(c).
    categories_ : list of n_features ndarrays of shape (n_categories_j,)
        The values of each feature.
    category_count_ : list of n_features ndarrays of shape (n_classes, n_categories_j)
        The (weighted) count n_cjv of each value per class.
    feature_log_prob_ : list of n_features ndarrays of shape (n_classes, n_categories_j)
        log theta_cjv = log(n_cjv + alpha) - log(n_cj + alpha J_j).
    n_categories_ : ndarray of shape (n_features,)
        J_j, the number of values of each feature.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        The column names seen during fit, when the input had names.
    stats_ : CategoricalStats
        The sufficient statistics (what ``merge``, ``unlearn`` and model files hold).
    params_ : CategoricalParams
        The fitted parameters as a read-only value, ``estimate(stats_, settings)``.

    >>> import numpy as np
    >>> X = [["Sunny", "Hot", "High", "Weak"], ["Sunny", "Hot", "High", "Strong"],
    ...      ["Overcast", "Hot", "High", "Weak"], ["Rain", "Mild", "High", "Weak"],
    ...      ["Rain", "Cool", "Normal", "Weak"], ["Rain", "Cool", "Normal", "Strong"],
    ...      ["Overcast", "Cool", "Normal", "Strong"], ["Sunny", "Mild", "High", "Weak"],
    ...      ["Sunny", "Cool", "Normal", "Weak"], ["Rain", "Mild", "Normal", "Weak"],
    ...      ["Sunny", "Mild", "Normal", "Strong"], ["Overcast", "Mild", "High", "Strong"],
    ...      ["Overcast", "Hot", "Normal", "Weak"], ["Rain", "Mild", "High", "Strong"]]
    >>> y = ["No", "No", "Yes", "Yes", "Yes", "No", "Yes", "No", "Yes", "Yes", "Yes", "Yes",
    ...      "Yes", "No"]
    >>> model = CategoricalNB(alpha=0).fit(X, y)
    >>> np.exp(model.predict_joint_log_proba([["Sunny", "Cool", "High", "Strong"]])).round(4)
    array([[0.0206, 0.0053]])
    >>> model.predict([["Sunny", "Cool", "High", "Strong"]]).tolist()
    ['No']
    """

    def _loo_loglik(self, Xv: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
        return leave_one_out.categorical(self, Xv, codes, w)  # the closed form of leave_one_out_joint

    _accepts_sparse = False
    _allows_nan = True
    _string_input = True

    _capabilities = BaseNB._capabilities | {"missing_values", "unlabeled", "categories", "per_class",
                                             "leave_one_out"}

    categories_ = fitted("categories", "list of n_features ndarrays of shape (n_categories_j,): the values of each feature.")
    category_count_ = fitted(
        "category_count", "list of n_features ndarrays of shape (n_classes, n_categories_j): the (weighted) counts."
    )
    feature_log_prob_ = fitted(
        "feature_log_prob", "list of n_features ndarrays of shape (n_classes, n_categories_j): log theta_cjv."
    )
    n_categories_ = fitted("n_categories", "ndarray of shape (n_features,): J_j, the values per feature.")
    _tables = fitted("tables", "Per feature, the terms predict looks up: [values..., unseen, missing].")

    def __init__(
        self,
        *,
        alpha: float = 1.0,
        force_alpha: bool = True,
        fit_prior: bool = True,
        class_prior: Any = None,
        min_categories: Any = None,
        class_alpha: float = 0.0,
        m: float | None = None,
        p: Any = None,
        categories: Any = None,
        handle_unknown: str = "smooth",
    ) -> None:
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.class_alpha = class_alpha
        self.m = m
        self.p = p
        self.categories = categories
        self.handle_unknown = handle_unknown

    # ------------------------------------------------------------------ boundary
    def check_params(self) -> None:
        check_number("alpha", self.alpha, low=0.0)
        check_number("class_alpha", self.class_alpha, low=0.0)
        check_number("m", self.m, low=0.0, allow_none=True)
        check_choice("handle_unknown", self.handle_unknown, ("smooth", "ignore"))
        if self.p is not None and self.m is None:
            raise InvalidParameterError("parameter 'p' (the m-estimate's prior) needs 'm' to be set")
        if self.p is not None and self.categories is None:
            raise InvalidParameterError(
                "parameter 'p' gives a prior per declared value: set 'categories' too "
                "(p[j][v] is the prior of categories[j][v])"
            )
        if self.p is not None and (
            isinstance(self.p, str | bytes | Mapping) or not isinstance(self.p, Sequence | np.ndarray)
        ):
            raise InvalidParameterError(
                f"parameter 'p' must be a list with one entry per feature (a probability per "
                f"declared category, or None for the uniform 1/J), got {self.p!r}"
            )

    def _m_prior(self, j: int, values: np.ndarray) -> np.ndarray | None:
        return m_prior(self.p, len(self.categories or ()), j, values)

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        return read_table(
            X,
            n_features=None if fitting else self.n_features_in_,
            feature_names=None if fitting else self.input_feature_names(),
            model=type(self).__name__,
        )

    # ------------------------------------------------------------------ statistics
    def count_statistics(self, T: Table, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> CategoricalStats:
        K = n_classes
        d = T.shape[1]
        cats: list[np.ndarray | None] = [None] * d
        counts: list[np.ndarray | None] = [None] * d
        if T.matrix is not None:
            self._count_matrix(T.matrix, codes, K, w, cats, counts)
        seen: list[np.ndarray] = []
        seen_counts: list[np.ndarray] = []
        for j in range(d):
            vals_j, cnt_j = cats[j], counts[j]
            if vals_j is None or cnt_j is None:  # not an integer column the kernel counted
                values, col_codes, miss = distinct(T.column(j))
                J = len(values)
                ok = ~miss
                flat = codes[ok] * J + col_codes[ok]
                cnt = np.bincount(flat, weights=None if w is None else w[ok], minlength=K * J)
                vals_j, cnt_j = _keep_seen(values, cnt.reshape(K, J).astype(np.float64))
            seen.append(vals_j)
            seen_counts.append(cnt_j)
        stats = CategoricalStats(np.bincount(codes, weights=w, minlength=K).astype(np.float64), seen, seen_counts)
        self._check_declared(stats)
        return stats

    @staticmethod
    def _count_matrix(
        X: np.ndarray,
        codes: np.ndarray,
        K: int,
        w: np.ndarray | None,
        cats: list[np.ndarray | None],
        counts: list[np.ndarray | None],
    ) -> None:
        """Integer-valued numeric columns: one compiled pass counts every (class, value) pair."""

        if X.dtype not in DTYPES:  # float16, longdouble: counted column by column
            return
        lo, hi, whole = value_range(X, threads())
        width = np.where(whole & (hi >= lo), hi - lo + 1, 0)
        width = np.where(width <= MAX_DIRECT_WIDTH, width, 0).astype(np.int64)
        if not width.any():
            return
        offsets = np.concatenate([[0], np.cumsum(K * width)]).astype(np.int64)
        has_w = w is not None
        lo0 = np.where(width > 0, lo, 0.0)
        y = np.ascontiguousarray(codes)
        table = count_values(X, y, w if has_w else np.empty(0), has_w, K, lo0, offsets, width, threads())
        kind = np.int64 if X.dtype.kind in "iub" else np.float64
        for j in np.flatnonzero(width):
            cnt = table[offsets[j] : offsets[j + 1]].reshape(K, width[j])
            values = (lo0[j] + np.arange(width[j])).astype(kind)
            cats[j], counts[j] = _keep_seen(values, cnt)

    def count_expected(self, T: Table, R: np.ndarray) -> CategoricalStats:
        """Expected counts: per feature, R^T @ (one-hot of its values)."""
        import scipy.sparse as sp

        n, K = R.shape
        cats, counts = [], []
        for j in range(T.shape[1]):
            values, col_codes, miss = distinct(T.column(j))
            ok = np.flatnonzero(~miss)
            onehot = sp.csr_matrix((np.ones(len(ok)), (ok, col_codes[ok])), shape=(n, len(values)))
            c, cnt = _keep_seen(values, np.ascontiguousarray((onehot.T @ R).T))
            cats.append(c)
            counts.append(cnt)
        stats = CategoricalStats(R.sum(axis=0), cats, counts)
        self._check_declared(stats)
        return stats

    def _em_log_prior(self) -> float:
        """sum over features of alpha log theta (m p_v log theta for the m-estimate)."""
        total = 0.0
        for j, logp in enumerate(self.feature_log_prob_):
            if self.m is None:
                a = float(self.alpha) if self.force_alpha else max(float(self.alpha), 1e-10)
                total += dirichlet_log_density(a, logp)
            else:
                J = max(logp.shape[1], int(self._min_categories(len(self.feature_log_prob_))[j]))
                given = self._m_prior(j, self.categories_[j])
                pv = np.full(logp.shape[1], 1.0 / max(J, 1)) if given is None else given
                total += dirichlet_log_density(float(self.m) * pv, logp)
        return total

    def _check_declared(self, stats: CategoricalStats) -> None:
        declared = self._declared(len(stats.categories))
        for j, (vals, dec) in enumerate(zip(stats.categories, declared)):
            if dec is None:
                continue
            _, unknown = encode_labels(vals, dec) if len(dec) else (None, np.ones(len(vals), bool))
            if len(vals) and unknown.any():
                raise DataError(
                    f"X: column {j} holds value {vals[np.argmax(unknown)]!r}, which is not among "
                    f"the declared categories {np.asarray(dec).tolist()!r}"
                )

    def _declared(self, d: int) -> list[np.ndarray | None]:
        if self.categories is None:
            return [None] * d
        if len(self.categories) != d:
            raise InvalidParameterError(
                f"parameter 'categories' has {len(self.categories)} entries; expected one per "
                f"feature ({d}), None for a feature whose values are learned"
            )
        return [None if c is None else _label_array(c) for c in self.categories]

    # ------------------------------------------------------------------ estimation
    def estimation_settings(self, n_features: int) -> CategoricalSettings:
        """What :func:`estimate` reads from this model."""
        declared = self._declared(n_features)
        return CategoricalSettings(
            alpha=float(self.alpha) if self.force_alpha else max(float(self.alpha), 1e-10),
            m=None if self.m is None else float(self.m),
            p=self.p, n_declared=len(self.categories or ()),
            declared=declared, min_categories=self._min_categories(n_features), handle_unknown=self.handle_unknown,
            prior=self.prior_settings(),
        )

    def estimate_parameters(self, stats: CategoricalStats, n_features: int) -> CategoricalParams:
        return estimate(stats, self.estimation_settings(n_features))

    def _min_categories(self, d: int) -> np.ndarray:
        if self.min_categories is None:
            return np.zeros(d, dtype=np.int64)
        mc = np.asarray(self.min_categories)
        if mc.ndim == 0:
            mc = np.full(d, mc)
        if mc.shape != (d,) or mc.dtype.kind not in "iu" or np.any(mc < 0):
            raise InvalidParameterError(
                f"parameter 'min_categories' must be a non-negative integer or {d} of them, "
                f"got {self.min_categories!r}"
            )
        return mc.astype(np.int64)

    # ------------------------------------------------------------------ inference
    def _codes(self, T: Table) -> list[np.ndarray]:
        out = []
        for j, vals in enumerate(self.categories_):
            c = encode_values(T.column(j), vals)
            c[c < 0] = len(vals) + 1  # missing: the zero column of the table
            out.append(c)
        return out

    def _linear_form(self) -> tuple[np.ndarray, np.ndarray, Any]:
        from ..linear.transforms import OneHot

        W = np.concatenate([table[:, :-1] for table in self._tables], axis=1)  # values + unseen
        return W, self._intercept, OneHot(list(self.categories_), self.input_feature_names(), "LogisticRegression")

    def log_likelihood(self, T: Table) -> np.ndarray:
        jll = np.zeros((T.shape[0], len(self._intercept)))
        for table, c in zip(self._tables, self._codes(T)):
            jll += table[:, c].T
        return jll

    def feature_terms(self, T: Table) -> np.ndarray:
        return np.stack([table[:, c].T for table, c in zip(self._tables, self._codes(T))], axis=2)

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        """Per (feature, value): log theta_cjv - log theta_(not c)jv, others pooled alike."""
        scores, names = [], []
        feat = self.display_feature_names()
        a = float(self.alpha) if self.alpha > 0 else 1.0
        for j, (vals, cnt) in enumerate(zip(self.categories_, self.category_count_)):
            J = max(len(vals), 1)
            rest = cnt.sum(axis=0, keepdims=True) - cnt
            own = np.log(cnt + a) - np.log(cnt.sum(axis=1, keepdims=True) + a * J)
            oth = np.log(rest + a) - np.log(rest.sum(axis=1, keepdims=True) + a * J)
            scores.append(own - oth)
            names += [f"{feat[j]}={v}" for v in vals.tolist()]
        return np.concatenate(scores, axis=1), names

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> CategoricalStats:
        return CategoricalStats.from_arrays(arrays, n_features)


def _keep_seen(values: np.ndarray, cnt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = cnt.sum(axis=0) > 0
    return values[keep], np.ascontiguousarray(cnt[:, keep])


def _label_array(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind not in "iufbU":
        arr = np.empty(len(values), dtype=object)
        arr[:] = list(values)
    return union_labels(arr[:0], arr)
