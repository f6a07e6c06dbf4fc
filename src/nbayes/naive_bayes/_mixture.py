"""The hooks EM (``nbayes.naive_bayes._em``, wrapped by ``nbayes.EM``) and several mixture
components per class (``nbayes.naive_bayes._components``) use, mixed into
:class:`~nbayes.naive_bayes.BaseNB`: defaults that fit any model, overridden for speed."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidParameterError, NBayesError
from ._components import Components

__all__ = ["MixtureHooks"]


class MixtureHooks:
    """EM's views and expected counts, and the component layout (fitted state)."""

    # ------------------------------------------------------------------ semi-supervised EM
    # (nbayes.naive_bayes._em, wrapped by nbayes.EM; defaults that fit any model, overridden
    # for speed)
    def _check_em(self: Any) -> None:
        """Raise when this configuration cannot learn from unlabelled rows."""

    def _em_views(self: Any, parts: list[Any]) -> list[Any]:
        """Prepared inputs as EM iterates over them (text models count their documents once)."""
        return list(parts)

    def _em_align(self: Any, stats: Any, views: list[Any]) -> Any:
        """The labelled statistics laid over what the views span (text: their vocabulary)."""
        return stats

    def _em_jll(self: Any, view: Any) -> np.ndarray:
        """The joint log-likelihood EM works with: per class, or per component (mixtures)."""
        if self._mixture() is None:
            joint: np.ndarray = self.joint_log_likelihood(view)
            return joint
        per_component: np.ndarray = self.log_likelihood(view) + self._intercept
        return per_component

    # ------------------------------------------------------------------ components per class
    # (nbayes.naive_bayes._components): the layout is fitted state (``_layout``, set by EM and
    # saved in the model file), not a setting; absent for the ordinary model
    def _mixture(self: Any) -> Components | None:
        """The layout of the components (None: one per class, the ordinary model). Read from
        ``__dict__``: this runs inside deferred estimation."""
        layout: Components | None = self.__dict__.get("_layout")
        return layout

    def _has_components(self: Any) -> bool:
        return self.__dict__.get("_layout") is not None

    def _class_rows(self: Any, a: np.ndarray) -> np.ndarray:
        """Per-class rows of a per-row (per-component) table: summed over components."""
        mix = self._mixture()
        return a if mix is None else mix.class_sums(a)

    def _no_components(self: Any, what: str, error: type[NBayesError] | None = None) -> None:
        """Refuse ``what`` for a model with several components per class."""
        mix = self._mixture()
        if mix is not None:
            sizes = mix.sizes.tolist()
            raise (error or InvalidParameterError)(
                f"{what}: this {type(self).__name__} has several mixture components per class "
                f"(n_components_={sizes}, fitted by nbayes.EM); its components are "
                "fitted by EM over all rows at once (which component a row belongs to is a "
                "posterior, and components of two fits do not correspond), so they are not sums of "
                f"per-row statistics and {what} is not exact; fit again on all rows, or use "
                "one component per class"
            )

    def count_expected(self: Any, Xv: Any, R: np.ndarray) -> Any:
        """Statistics of rows counted with weight R[i, k] in class k (expected counts): here one
        weighted count per class; the count models override it with one product R^T X."""
        n, K = R.shape
        total = None
        for k in range(K):
            part = self.count_statistics(Xv, np.full(n, k, dtype=np.intp), K, np.ascontiguousarray(R[:, k]))
            total = part if total is None else total + part
        return total

    def _em_log_prior(self: Any) -> float:
        """log density of the prior whose posterior mode the feature estimates are (MAP-EM's
        objective); 0 for maximum-likelihood parts."""
        return 0.0
