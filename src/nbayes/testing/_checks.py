"""The registry of laws: which capability each needs, and the generator of checks."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from . import laws_learning as L
from . import laws_magnitudes as M
from . import laws_predicting as P
from . import laws_prior as R
from ..errors import InvalidParameterError
from ._compare import LawError
from .data import Dataset, _wrapped, dataset_for


def _generative_numbers(estimator: Any, data: Dataset) -> bool:
    """Numeric features under a generative model (a wrapper: of the model it wraps)."""
    inner = _wrapped(estimator) or estimator
    return data.kind in ("real", "frame") and "joint_log_proba" in inner.capabilities


@dataclass(frozen=True)
class Law:
    """A law, the capabilities it needs, and any further condition on the estimator/data."""

    name: str
    run: Callable[[Any, Dataset], None]
    needs: frozenset[str] = frozenset()
    when: Callable[[Any, Dataset], bool] = lambda estimator, data: True


LAWS: tuple[Law, ...] = (
    # universal
    Law("probabilities", P.law_probabilities),
    Law("predict_is_argmax", P.law_predict_is_argmax),
    Law("input_not_modified", P.law_input_not_modified),
    Law("not_fitted", P.law_not_fitted),
    Law("labels_keep_their_types", P.law_labels_keep_their_types),
    Law("failed_fit_changes_nothing", L.law_failed_fit_changes_nothing),
    Law("feature_order", P.law_feature_order, when=lambda e, d: d.n_features is not None),
    Law("scale_invariance", P.law_scale_invariance, when=_generative_numbers),
    # by capability
    Law("fit_equals_chunked_partial_fit", L.law_fit_equals_chunked_partial_fit, frozenset({"partial_fit"})),
    Law("empty_chunk_changes_nothing", L.law_empty_chunk_changes_nothing, frozenset({"partial_fit"})),
    Law("failed_partial_fit_changes_nothing", L.law_failed_partial_fit_changes_nothing, frozenset({"partial_fit"})),
    Law("fit_equals_merge_of_shards", L.law_fit_equals_merge_of_shards, frozenset({"merge"})),
    Law("failed_merge_changes_nothing", L.law_failed_merge_changes_nothing, frozenset({"merge"})),
    Law("unlearn_class", L.law_unlearn_class, frozenset({"unlearn"})),
    Law("unlearn_subset", L.law_unlearn_subset, frozenset({"unlearn"})),
    Law("failed_unlearn_changes_nothing", L.law_failed_unlearn_changes_nothing, frozenset({"unlearn"})),
    Law("unlearn_undoes_learn_under_any_magnitude", M.law_unlearn_undoes_learn_under_any_magnitude,
        frozenset({"unlearn", "partial_fit", "sample_weight", "save"})),
    Law("duplicated_rows_are_weights", L.law_duplicated_rows_are_weights, frozenset({"sample_weight"}),
        when=lambda e, d: _wrapped(e) is None),  # a wrapper's folds move with repeated rows
    Law("unit_weights", L.law_unit_weights, frozenset({"sample_weight"})),
    Law("sparse_equals_dense", L.law_sparse_equals_dense, frozenset({"sparse"}),
        when=lambda e, d: d.kind in ("counts", "binary", "real")),
    Law("save_load", P.law_save_load, frozenset({"save"})),
    Law("with_prior", R.law_with_prior, frozenset({"with_prior"})),
    Law("prior_parameter", R.law_prior_parameter,
        when=lambda e, d: bool({"class_prior", "priors"} & set(e.get_params(deep=False)))),
    Law("explanations_add_up", R.law_explanations_add_up, frozenset({"explain"})),
    Law("to_logistic", P.law_to_logistic, frozenset({"to_logistic"})),
    Law("missing_is_marginalised", P.law_missing_is_marginalised, frozenset({"missing_values"}),
        when=lambda e, d: d.n_features is not None),
)

#: law name -> the capabilities it needs (the universal laws need none)
REQUIREMENTS: dict[str, frozenset[str]] = {law.name: law.needs for law in LAWS}


def checks(
    estimator: Any, *, data: Dataset | None = None, seed: int = 0, kind: str | None = None,
    skip: frozenset[str] | set[str] | tuple[str, ...] = (),
) -> Iterator[tuple[str, Callable[[], None]]]:
    """``(name, check)`` for every law ``estimator`` declares the capabilities for.

    ``check()`` runs the law on clones of ``estimator`` (never fits it) over ``data`` (by
    default :func:`~nbayes.testing.data.dataset_for` the estimator, seeded by ``seed``, of
    ``kind`` if given) and raises :class:`LawError` (an ``AssertionError``) naming the law and
    the estimator when it does not hold. ``skip``: names of laws to leave out.
    """
    data = dataset_for(estimator, seed, kind=kind) if data is None else data
    caps = estimator.capabilities
    unknown = set(skip) - set(REQUIREMENTS)
    if unknown:
        raise InvalidParameterError(f"skip: no law named {sorted(unknown)}; laws: {sorted(REQUIREMENTS)}")
    for law in LAWS:
        if law.name in skip or not law.needs <= caps or not law.when(estimator, data):
            continue
        yield law.name, functools.partial(_run, law, estimator, data)


def _run(law: Law, estimator: Any, data: Dataset) -> None:
    try:
        law.run(estimator, data)
    except LawError as exc:
        raise LawError(f"law {law.name!r} fails for {estimator!r} on {data.kind} data (seed {data.seed}): {exc}") from None
    except Exception as exc:
        raise LawError(
            f"law {law.name!r} could not run for {estimator!r} on {data.kind} data (seed {data.seed}): "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def check_estimator(estimator: Any, **kwargs: Any) -> list[str]:
    """Run every check of :func:`checks` (same arguments); raise on the first law that fails.
    Returns the names of the laws that ran."""
    ran = []
    for name, check in checks(estimator, **kwargs):
        check()
        ran.append(name)
    return ran
