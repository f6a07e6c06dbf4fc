"""NaiveBayes' statistics (a part per column kind) and their model-file arrays."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..errors import StatisticsError, UnlearnError
from ..io.model_file import decode_params
from ..stats import CountStats, MomentStats
from ..stats.checks import check_class_count
from ._files import check_state
from ._model_file import restore_em_report

if TYPE_CHECKING:  # pragma: no cover
    from .mixed import NaiveBayes

__all__ = ["KINDS", "MixedStats", "load_mixed", "mixed_stats_from_arrays"]

_M = TypeVar("_M", bound="NaiveBayes")

KINDS = ("gaussian", "categorical", "bernoulli", "text", "binned")


@dataclass
class MixedStats:
    """The class weights and, per component kind, that component's statistics."""

    class_count: np.ndarray
    parts: dict[str, Any]

    def embed(self, pos: np.ndarray, n_classes: int) -> "MixedStats":
        """These statistics inside a class set of ``n_classes``; class k goes to row ``pos[k]``."""
        cc = np.zeros(n_classes)
        cc[pos] = self.class_count
        return MixedStats(cc, {k: s.embed(pos, n_classes) for k, s in self.parts.items()})

    def __add__(self, other: "MixedStats") -> "MixedStats":
        return MixedStats(
            self.class_count + other.class_count,
            {k: s + other.parts[k] for k, s in self.parts.items()},
        )

    def subtract(self, other: "MixedStats", classes: np.ndarray) -> "MixedStats":
        """Each part's statistics without ``other``'s part of the same kind."""
        parts = {}
        for k, s in self.parts.items():
            try:
                parts[k] = s.subtract(other.parts[k], classes)
            except UnlearnError as exc:
                exc.part = k  # its columns are counted within the part: the model names them
                raise
        cc = next(iter(parts.values())).class_count if parts else self.class_count - other.class_count
        return MixedStats(cc, parts)

    def merge(self, other: "MixedStats") -> "MixedStats":
        """The statistics of both sets of rows (same class layout): ``self + other``."""
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Each part's own check, and every part counting the same class weights."""
        cc = check_class_count(self.class_count, n_classes)
        for kind, part in self.parts.items():
            part.check(n_classes=len(cc))
            if not np.allclose(part.class_count, cc, rtol=1e-9, atol=1e-9):
                raise StatisticsError(
                    f"statistics 'part/{kind}/class_count' {np.asarray(part.class_count).tolist()} differ "
                    f"from the model's class weights {cc.tolist()}"
                )

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file: the class weights and each part's arrays under ``part/<kind>/``."""
        out = {"stats/class_count": self.class_count}
        for kind, s in self.parts.items():
            out.update({f"part/{kind}/{k}": v for k, v in s.to_arrays().items()})
        return out


def mixed_stats_from_arrays(arrays: dict[str, np.ndarray], stats_class: Callable[[str], Any]) -> MixedStats:
    """The statistics of ``MixedStats.to_arrays``' arrays (an update in the learning service's
    log): each part's under ``part/<kind>/``, its number of columns read from its arrays' names
    (a model file's reader takes them from the column kinds); ``stats_class`` gives each
    kind's statistics class."""
    parts = {}
    for kind in KINDS:
        prefix = f"part/{kind}/"
        sub = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
        if not sub:
            continue
        parts[kind] = _part_from_arrays(kind, stats_class(kind), sub, _n_columns(sub))
    return MixedStats(np.asarray(arrays["stats/class_count"], dtype=np.float64), parts)


def _part_from_arrays(kind: str, S: Any, sub: dict[str, np.ndarray], d: int) -> Any:
    """A part's statistics from its arrays: ``d`` columns; the Bernoulli part's counts are of
    0/1 features (each at most its observed weight)."""
    if S is CountStats:
        return CountStats.from_arrays(sub, presence=kind == "bernoulli")
    return S.from_arrays(sub) if S is MomentStats else S.from_arrays(sub, d)


def _n_columns(sub: dict[str, np.ndarray]) -> int:
    """The number of columns of a categorical part (``stats/categories/<j>``) or a text part
    (``col/<j>/...``) from its arrays' names."""
    cols = set()
    for k in sub:
        parts = k.split("/")
        if k.startswith(("stats/categories/", "stats/edges/")) and parts[2].isdigit():
            cols.add(int(parts[2]))
        elif parts[0] == "col" and len(parts) > 1 and parts[1].isdigit():
            cols.add(int(parts[1]))
    return len(cols)


def load_mixed(cls: type[_M], state: dict[str, Any], stats_class: Callable[[str], Any]) -> _M:
    """The NaiveBayes of a model-file state: each part's statistics read with its number of
    columns from the column kinds, checked, then the parameters estimated."""
    arrays, meta = state["arrays"], state["meta"]
    kinds = list(meta["column_kinds"])
    params = decode_params(state["params"], arrays)
    if isinstance(params.get("column_types"), dict):
        params["column_types"] = dict(params["column_types"])
    model = cls(**params)
    parts = {}
    for kind in KINDS:
        d = sum(1 for k in kinds if k == kind)
        if not d:
            continue
        sub = {k[len(f"part/{kind}/") :]: v for k, v in arrays.items() if k.startswith(f"part/{kind}/")}
        parts[kind] = _part_from_arrays(kind, stats_class(kind), sub, d)
        parts[kind].check(n_classes=len(arrays["classes"]), n_features=d)  # its shapes: its columns
    stats = MixedStats(arrays["stats/class_count"], parts)
    if sum(1 for k in kinds) != int(meta["n_features_in"]):
        raise StatisticsError(f"meta: {len(kinds)} column kinds for {meta['n_features_in']} features")
    check_state(stats, arrays["classes"], int(meta["n_features_in"]), meta)
    model._pending_kinds = kinds
    if meta.get("column_decisions"):
        model._pending_decisions = [dict(d) for d in meta["column_decisions"]]
    model.set_statistics(stats, arrays["classes"], int(meta["n_features_in"]), meta.get("feature_names"))
    restore_em_report(model, meta)
    return model
