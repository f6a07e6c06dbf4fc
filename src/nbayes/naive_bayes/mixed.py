"""NaiveBayes: one model over a table of mixed columns, composed of per-type components.

Numbers go to a Gaussian component, strings / categoricals / objects to a categorical one,
booleans to a Bernoulli one (chosen from the dtype, overridable per column). Their
log-likelihoods add (the Naive Bayes assumption across column types); the class prior is added
once. Missing values are left out of each component exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._validation import check_choice, check_number, check_table, frame_names, is_missing, show
from ..errors import DataError, InvalidParameterError, MergeError
from ..stats import BinnedStats, CategoricalStats, CountStats, MomentStats
from ._base import BaseNB
from ._naming import MixedNaming
from ._mixed_stats import KINDS, MixedStats, load_mixed, mixed_stats_from_arrays
from .params import Params, PriorAttributes, assign_parameters, estimate_prior, fitted
from .._tables import Table, frame_column, read_table
from .bernoulli import BernoulliNB, Binary
from .categorical import CategoricalNB
from .gaussian import VARIANCES, GaussianNB
from .binned import BINS, Binned, BinnedNB
from ._numeric import decide_numeric
from ._typing import SAMPLE, _arrow_kind, _pandas_kind, _polars_kind, _strings_kind, _values_kind

NUMERIC = ("gaussian", "auto", "binned")


def _stats_class(kind: str) -> Any:
    if kind == "text":
        from ..text.columns import TextColumnsStats

        return TextColumnsStats
    return {"gaussian": MomentStats, "categorical": CategoricalStats, "bernoulli": CountStats,
            "binned": BinnedStats}[kind]


@dataclass
class Parts:
    """Prepared input: per component kind, that component's validated input."""

    parts: dict[str, Any]
    shape: tuple[int, int]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MixedParams(Params):
    """:class:`NaiveBayes`' parameters: ``components``, one fitted model per column kind
    (``"gaussian"``, ``"categorical"``, ``"bernoulli"``, ``"binned"``, ``"text"``), each with its
    own ``stats_`` and ``params_``, and the class prior, added once."""

    components: dict[str, Any]


class NaiveBayes(PriorAttributes, MixedNaming, BaseNB):
    """Naive Bayes over a table whose columns have different types.

    Column types come from the dtype: numbers (integers too) are ``"gaussian"``, strings,
    categoricals and objects ``"categorical"``, booleans ``"bernoulli"``, and string columns of
    long, varied values (20 characters or more on average, mostly with spaces, at least half
    distinct) ``"text"``: a multinomial bag of words per column, with scikit-learn's tokens. ``column_types`` maps
    a column name (or index, for arrays) to a type to override that choice. Accepts pandas,
    polars and pyarrow tables, and numpy arrays (object arrays are typed per column from their
    values). ``alpha`` smooths the categorical and Bernoulli components; ``var_smoothing``,
    ``variance`` and ``ddof`` configure the Gaussian one; ``handle_unknown`` and ``m`` the
    categorical one. The fitted ``column_kinds_`` says what was chosen.

    Numeric columns a Gaussian fits badly: ``"binned"`` (in ``column_types``) cuts a numeric
    column into ``bins`` quantile bins (a value holding 1/``bins`` of the rows or more, such as
    the zeros of a mostly-zero column, gets a bin of its own; ``bins`` distinct values or fewer,
    one bin per value) and models the bin as a category. The edges are fixed at the first fit
    (or given in ``bin_edges``: column -> increasing edges) and are part of the statistics:
    later ``partial_fit`` / ``unlearn`` batches are binned alike, and models merge only with
    equal edges. ``numeric`` says how columns typed numeric by their dtype are modelled:
    ``"gaussian"`` (the default), ``"binned"``, or ``"auto"``: a column with few distinct
    values, mostly one value or a heavy skew is binned when that beats the Gaussian in 5-fold
    held-out accuracy on the first fit's rows (what ``nbayes train`` does);
    ``column_decisions_`` lists each such column, its model and why.

    Rows without labels: ``fit(X, y, X_unlabeled=U)`` trains by EM (Nigam et al. 2000) with
    :class:`nbayes.EM`'s defaults but ``unlabeled_weight="auto"`` (the unlabelled rows' weight
    chosen by cross-validation on the labelled rows, 0 included; at most 100 steps) and leaves
    this model the EM-completed model (its statistics include the expected counts, and
    ``n_iter_`` / ``em_log_likelihood_`` report the run); for other EM settings
    (``unlabeled_weight="cv"``, ``unlabeled_label``) wrap it:
    ``nbayes.EM(model, ...)``. See docs/semi-supervised.md.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weight of the training rows of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        log P(c), added once.
    column_kinds_ : list of str
        The kind of each column (``"gaussian"``, ``"categorical"``, ``"bernoulli"``, ``"binned"``, ``"text"``).
    components_ : dict
        The fitted model of each column kind, over its columns.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        The column names seen during fit, when the input had names.
    stats_ : MixedStats
        The sufficient statistics (what ``merge``, ``unlearn`` and model files hold).
    params_ : MixedParams
        The fitted parameters as a read-only value, ``estimate(stats_, settings)``.

    >>> import numpy as np
    >>> X = np.array([[1.0, "red", True], [1.2, "red", True], [3.1, "blue", False],
    ...               [2.9, "blue", True]], dtype=object)
    >>> model = NaiveBayes().fit(X, ["a", "a", "b", "b"])
    >>> model.column_kinds_
    ['gaussian', 'categorical', 'bernoulli']
    >>> model.predict(np.array([[1.1, "red", None]], dtype=object)).tolist()
    ['a']
    """

    _allows_nan = True
    _string_input = True

    _capabilities = (BaseNB._capabilities | {"missing_values", "columns", "unlabeled"}) - {"to_logistic"}

    components_ = fitted("components", "dict: the fitted model of each column kind (its columns' parameters).")

    def __init__(
        self,
        *,
        column_types: dict[Any, str] | None = None,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Any = None,
        class_alpha: float = 0.0,
        var_smoothing: float = 1e-9,
        variance: str = "class_feature",
        ddof: int = 0,
        handle_unknown: str = "smooth",
        m: float | None = None,
        numeric: str = "gaussian",
        bins: int = BINS,
        bin_edges: dict[Any, Any] | None = None,
    ) -> None:
        self.column_types = column_types
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha
        self.var_smoothing = var_smoothing
        self.variance = variance
        self.ddof = ddof
        self.handle_unknown = handle_unknown
        self.m = m
        self.numeric = numeric
        self.bins = bins
        self.bin_edges = bin_edges

    # ------------------------------------------------------------------ components
    def _component(self, kind: str) -> BaseNB:
        if kind == "gaussian":
            return GaussianNB(var_smoothing=self.var_smoothing, variance=self.variance, ddof=self.ddof)
        if kind == "categorical":
            return CategoricalNB(alpha=self.alpha, handle_unknown=self.handle_unknown, m=self.m)
        if kind == "text":
            from ..text.columns import TextColumns

            # TextColumns speaks BaseNB's hook protocol (one TextClassifier per text column) without
            # being a BaseNB: typing cannot see the duck type
            return TextColumns(alpha=self.alpha)  # type: ignore[return-value]
        if kind == "binned":
            return BinnedNB(alpha=self.alpha, m=self.m)
        return BernoulliNB(alpha=self.alpha, binarize=None)

    def check_params(self) -> None:
        check_choice("variance", self.variance, VARIANCES)
        check_choice("numeric", self.numeric, NUMERIC)
        check_number("bins", self.bins, low=2, integer=True)
        if self.bin_edges is not None and not isinstance(self.bin_edges, dict):
            raise InvalidParameterError(
                f"parameter 'bin_edges' must be a dict {{column: edges}}, got {type(self.bin_edges).__name__}"
            )
        for kind in KINDS:
            self._component(kind).check_params()
        if self.column_types is not None:
            if not isinstance(self.column_types, dict):
                raise InvalidParameterError(
                    "parameter 'column_types' must be a dict {column: type}, "
                    f"got {type(self.column_types).__name__}"
                )
            for col, kind in self.column_types.items():
                if kind not in KINDS:
                    raise InvalidParameterError(
                        f"parameter 'column_types': column {col!r} has type {kind!r}; "
                        f"expected one of {', '.join(KINDS)}"
                    )

    # ------------------------------------------------------------------ boundary
    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        if fitting:
            kinds = self.infer_column_kinds(X)
        T, names = read_table(
            X,
            n_features=None if fitting else self.n_features_in_,
            feature_names=None if fitting else self.input_feature_names(),
            model=type(self).__name__,
        )
        if fitting:
            named: set[int] = set()
            if self.column_types:
                known = set(names or []) | set(range(T.shape[1]))
                for col in self.column_types:
                    if col not in known:
                        raise InvalidParameterError(
                            f"parameter 'column_types' names column {col!r}, which is not in X"
                        )
                for j in range(T.shape[1]):
                    key = names[j] if names is not None and names[j] in self.column_types else j
                    if key in self.column_types:
                        named.add(j)
                    kinds[j] = self.column_types.get(key, kinds[j])
            choice = decide_numeric(self, T, names, kinds, named, self.__dict__.get("_typing_labels"),
                                    lambda j: _as_float(T.column(j), j, names, "binned"))
            kinds, edges = choice.kinds, choice.edges
            self._pending_kinds = kinds
            self._pending_decisions = choice.decisions
        else:
            kinds = self.column_kinds_
            binned = [j for j, k in enumerate(kinds) if k == "binned"]
            edges = dict(zip(binned, self.stats_.parts["binned"].edges)) if binned else {}
        return self._parts_of(T, names, kinds, edges), names

    def _parts_of(self, T: Table, names: list[str] | None, kinds: list[str], edges: dict[int, np.ndarray]) -> Parts:
        """The table's columns as each component takes them (``edges``: column -> bin edges of
        the binned ones)."""
        parts: dict[str, Any] = {}
        for kind in KINDS:
            idx = [j for j, k in enumerate(kinds) if k == kind]
            if not idx:
                continue
            if kind == "categorical":
                parts[kind] = Table(None, [T.column(j) for j in idx], (T.shape[0], len(idx)))
                continue
            if kind == "text":
                from ..text.columns import as_docs

                parts[kind] = [as_docs(T.column(j)) for j in idx]
                continue
            M = np.column_stack([_as_float(T.column(j), j, names, kind) for j in idx])
            if kind in ("gaussian", "binned"):
                if np.isinf(M).any():
                    i, jj = np.argwhere(np.isinf(M))[0]
                    raise DataError(f"X: row {i}, {_name(idx[jj], names)} holds inf; expected a finite number")
                M = np.ascontiguousarray(M)
                parts[kind] = M if kind == "gaussian" else Binned(M, [edges[j] for j in idx])
            else:
                nan = np.isnan(M)
                parts[kind] = Binary(np.where(nan, 0.0, M), nan.astype(float) if nan.any() else None)
        return Parts(parts, T.shape)

    def _fit_supervised(self, X: Any, y: Any = None, sample_weight: Any = None) -> "NaiveBayes":
        with _TypingLabels(self, y, sample_weight):
            return super()._fit_supervised(X, y, sample_weight)

    def _partial_fit(self, X: Any, y: Any, classes: Any, sample_weight: Any) -> "NaiveBayes":
        with _TypingLabels(self, y, sample_weight):
            return super()._partial_fit(X, y, classes, sample_weight)

    def infer_column_kinds(self, X: Any) -> list[str]:
        """The kind of each column of ``X`` as :class:`NaiveBayes` types it when
        ``column_types`` does not say: ``"gaussian"``, ``"categorical"``, ``"bernoulli"`` or
        ``"multinomial"`` (from a frame's dtypes, or a sample of an array's values; the CLI and
        :mod:`nbayes.dask` type a file's columns with it)."""
        check_table(X)
        mod = type(X).__module__.split(".")[0]
        if mod in ("pandas", "polars", "pyarrow") and hasattr(X, "columns"):
            frame_names(X)  # unique, before any column is looked up by name
        if mod == "pandas" and hasattr(X, "dtypes"):
            return [_pandas_kind(X[c]) for c in X.columns]
        if mod == "polars" and hasattr(X, "schema"):
            return [
                _strings_kind(X.get_column(n).head(SAMPLE).to_list()) if k == "categorical" else k
                for n, k in ((n, _polars_kind(dt)) for n, dt in X.schema.items())
            ]
        if mod == "pyarrow" and hasattr(X, "schema"):
            return [
                _strings_kind(X.column(f.name).slice(0, SAMPLE).to_pylist()) if k == "categorical" else k
                for f, k in ((f, _arrow_kind(f.type)) for f in X.schema)
            ]
        A = np.asarray(X, dtype=object) if isinstance(X, list | tuple) else np.asarray(X)
        if A.ndim != 2:
            return []
        if A.dtype.kind == "b":
            return ["bernoulli"] * A.shape[1]
        if A.dtype.kind in "iuf":
            return ["gaussian"] * A.shape[1]
        if A.dtype.kind in "US":
            return [_strings_kind(A[:SAMPLE, j].tolist()) for j in range(A.shape[1])]
        return [_values_kind(A[:, j]) for j in range(A.shape[1])]

    # ------------------------------------------------------------------ statistics
    def set_statistics(self, stats: Any, classes: np.ndarray, n_features: int, names: list[str] | None) -> None:
        kinds = getattr(self, "_pending_kinds", None)
        if kinds is not None:
            self.__dict__.pop("_pending_kinds")
            decisions = self.__dict__.pop("_pending_decisions", None)
            old = getattr(self, "column_kinds_", None)
            self.column_kinds_ = kinds
            try:
                super().set_statistics(stats, classes, n_features, names)
            except Exception:
                if old is None:
                    del self.column_kinds_
                else:
                    self.column_kinds_ = old
                raise
            if decisions is not None:
                self.column_decisions_ = decisions
        else:
            super().set_statistics(stats, classes, n_features, names)

    def count_statistics(self, Xv: Parts, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> MixedStats:
        parts = {k: self._component(k).count_statistics(v, codes, n_classes, w) for k, v in Xv.parts.items()}
        cc = np.bincount(codes, weights=w, minlength=n_classes).astype(np.float64)
        return MixedStats(cc, parts)

    def count_expected(self, Xv: Parts, R: np.ndarray) -> MixedStats:
        parts = {}
        for kind, v in Xv.parts.items():
            comp = self._component(kind)  # text columns: one weighted count per class
            parts[kind] = comp.count_expected(v, R) if kind != "text" else BaseNB.count_expected(comp, v, R)
        return MixedStats(R.sum(axis=0), parts)

    def _em_log_prior(self) -> float:
        total = 0.0
        for kind, comp in self.components_.items():
            models = comp.models_ if kind == "text" else [comp]
            total += sum(m._em_log_prior() for m in models)
        return float(total)

    def estimate_parameters(self, stats: MixedStats, n_features: int) -> MixedParams:
        """Each column kind's component estimates its own parameters (a fresh component per
        estimation: the model's are replaced, never changed); the class prior is added once."""
        components = {}
        kinds = getattr(self, "_pending_kinds", None) or self.column_kinds_
        for kind, s in stats.parts.items():
            comp = self._component(kind)
            d = sum(1 for k in kinds if k == kind)
            assign_parameters(comp, comp.estimate_parameters(s, d))
            comp.stats_ = s
            comp.n_features_in_ = d
            components[kind] = comp
        prior = estimate_prior(stats.class_count, replace(self.prior_settings(), components=None))
        return MixedParams(components=components, **prior)

    # ------------------------------------------------------------------ inference
    def _linear_form(self) -> tuple[np.ndarray, np.ndarray, Any]:
        raise InvalidParameterError(
            "to_logistic is not built for the mixed NaiveBayes yet (its categorical, Bernoulli "
            "and shared-variance Gaussian parts are linear, a class-dependent variance or a text "
            "part's counts need their own maps); convert a single-type model instead "
            "(CategoricalNB, BernoulliNB, MultinomialNB, GaussianNB(variance='feature'))"
        )

    def log_likelihood(self, Xv: Parts) -> np.ndarray:
        out = np.zeros((Xv.shape[0], len(self._intercept)))
        for kind, comp in self.components_.items():
            out += comp.log_likelihood(Xv.parts[kind])
        return out

    def feature_terms(self, Xv: Parts) -> np.ndarray:
        out = np.zeros((Xv.shape[0], len(self._intercept), Xv.shape[1]))
        for kind, comp in self.components_.items():
            idx = [j for j, k in enumerate(self.column_kinds_) if k == kind]
            out[:, :, idx] = comp.feature_terms(Xv.parts[kind])
        return out

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        names = self.display_feature_names()
        scores, labels = [], []
        for kind, comp in self.components_.items():
            idx = [j for j, k in enumerate(self.column_kinds_) if k == kind]
            comp.feature_names_in_ = np.asarray([names[j] for j in idx], dtype=object)
            s, n = comp.feature_scores()
            scores.append(s)
            labels += n
        return np.concatenate(scores, axis=1), labels

    # ------------------------------------------------------------------ files
    def to_state(self) -> dict[str, Any]:
        state = super().to_state()
        state["meta"]["column_kinds"] = list(self.column_kinds_)
        if self.__dict__.get("column_decisions_"):
            state["meta"]["column_decisions"] = [dict(d) for d in self.column_decisions_]
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "NaiveBayes":
        return load_mixed(cls, state, _stats_class)

    def unfitted_like(self) -> "NaiveBayes":
        """An unfitted NaiveBayes with this one's settings and column kinds (those its
        ``prepare_input`` read, or its fitted ``column_kinds_``)."""
        new = type(self)(**self.get_params())
        kinds = self.__dict__.get("_pending_kinds") or self.__dict__.get("column_kinds_")
        if kinds is not None:
            new._pending_kinds = list(kinds)
        return new

    def _new_like(self, other: BaseNB) -> "NaiveBayes":
        if list(other.column_kinds_) != list(self.column_kinds_):
            raise MergeError(
                f"cannot merge: column types differ ({self.column_kinds_} vs {other.column_kinds_})"
            )
        if "binned" in self.column_kinds_:
            mine, theirs = self.stats_.parts["binned"].edges, other.stats_.parts["binned"].edges
            cols = [j for j, k in enumerate(self.column_kinds_) if k == "binned"]
            for j, a, b in zip(cols, mine, theirs):
                if a.shape != b.shape or not np.array_equal(a, b):
                    raise MergeError(
                        f"cannot merge: {_name(j, self.input_feature_names())} was binned at other edges "
                        f"({len(a) + 1} vs {len(b) + 1} bins, or other cut points); bins are fixed at the "
                        "first fit: give both models the same bin_edges to merge them"
                    )
        new = type(self)(**self.get_params())
        new._pending_kinds = list(self.column_kinds_)
        return new

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> MixedStats:
        """The statistics of ``MixedStats.to_arrays``' arrays (an update in the learning
        service's log): each part's under ``part/<kind>/``, its number of columns read from its
        arrays' names (a model file's reader, ``_load``, takes them from the column kinds)."""
        return mixed_stats_from_arrays(arrays, _stats_class)


class _TypingLabels:
    """While a fit or a first ``partial_fit`` prepares its input, the labels and weights of its
    rows, for ``numeric="auto"``'s choice between a Gaussian and bins (a choice by held-out
    accuracy needs them; ``prepare_input`` takes none)."""

    def __init__(self, model: NaiveBayes, y: Any, sample_weight: Any) -> None:
        self.model, self.labels = model, None if y is None else (y, sample_weight)

    def __enter__(self) -> None:
        if self.labels is not None:
            self.model.__dict__["_typing_labels"] = self.labels

    def __exit__(self, *exc: Any) -> None:
        self.model.__dict__.pop("_typing_labels", None)


def _name(j: int, names: list[str] | None) -> str:
    return f"column {names[j]!r}" if names else f"column {j}"


def _as_float(col: np.ndarray, j: int, names: list[str] | None, kind: str) -> np.ndarray:
    if col.dtype.kind in "iufb":
        out = col.astype(np.float64)
    else:
        out = np.empty(len(col))
        for i, v in enumerate(col.tolist()):
            if is_missing(v):
                out[i] = np.nan
                continue
            try:
                out[i] = float(v)
            except (TypeError, ValueError):
                expected = "a boolean (True/False or 0/1)" if kind == "bernoulli" else "a number"
                raise DataError(f"X: row {i}, {_name(j, names)} holds {show(v)}; expected {expected}") from None
    if kind == "bernoulli":
        bad = ~np.isnan(out) & (out != 0) & (out != 1)
        if bad.any():
            i = int(np.argmax(bad))
            raise DataError(
                f"X: row {i}, {_name(j, names)} holds {show(col[i])}; expected a boolean (True/False or 0/1)"
            )
    return out


__all__ = ["NaiveBayes", "MixedStats", "frame_column"]
