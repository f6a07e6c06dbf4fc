"""The result of :func:`nbayes.compare`: :class:`Comparison` (per training size and draw, each
model's test error and log-loss), its table, crossover, JSON, Markdown, figure and HTML page."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any, Iterable, NamedTuple

import numpy as np

from ..errors import DataError, MissingDependencyError
from .figures import learning_curves_svg

__all__ = ["Comparison", "Row", "crossover_size"]


# ----------------------------------------------------------------------------- results
class Row(NamedTuple):
    """One training size of a :class:`Comparison` table (errors are fractions in [0, 1];
    ``_std`` is the standard deviation over the draws, ddof=1; ``n_repeats`` counts the draws
    both models were fitted on, ``skipped`` the draws that missed a class)."""

    size: int
    nb_error_mean: float
    nb_error_std: float
    lr_error_mean: float
    lr_error_std: float
    n_repeats: int
    skipped: int
    nb_log_loss_mean: float
    lr_log_loss_mean: float


def _mean_std(a: np.ndarray) -> tuple[float, float]:
    a = a[~np.isnan(a)]
    if len(a) == 0:
        return float("nan"), float("nan")
    return float(a.mean()), float(a.std(ddof=1)) if len(a) > 1 else 0.0


def crossover_size(sizes: Iterable[int], nb_error: Iterable[float], lr_error: Iterable[float]) -> int | None:
    """The smallest size from which logistic regression's mean error stays strictly below
    Naive Bayes' at every larger size (sizes where either is missing are ignored), or None.

    >>> crossover_size([10, 20, 40, 80], [0.20, 0.18, 0.17, 0.17], [0.30, 0.19, 0.16, 0.15])
    40
    >>> crossover_size([10, 20], [0.2, 0.1], [0.1, 0.2]) is None
    True
    """
    s = np.asarray(list(sizes), dtype=np.int64)
    a = np.asarray(list(nb_error), dtype=float)
    b = np.asarray(list(lr_error), dtype=float)
    ok = ~np.isnan(a) & ~np.isnan(b)
    s, a, b = s[ok], a[ok], b[ok]
    if len(s) == 0 or not b[-1] < a[-1]:
        return None
    not_below = np.flatnonzero(~(b < a))
    return int(s[not_below[-1] + 1 if len(not_below) else 0])


#: the per-draw arrays of a Comparison, in constructor order
_DRAWS = ("nb_error", "lr_error", "nb_log_loss", "lr_log_loss", "error_diff_se")


class Comparison:
    """The result of :func:`compare`: per training size and draw, each model's test error and
    log-loss (arrays of shape (n_sizes, repeats), NaN for a skipped draw), the standard error of
    the difference of the two errors paired by test row (``error_diff_se``: how much of a gap
    the test set can resolve), and ``info`` about the run (rows, classes, pool and test sizes,
    the models, how LR's input was encoded)."""

    def __init__(
        self,
        sizes: Iterable[int],
        nb_error: Any,
        lr_error: Any,
        nb_log_loss: Any = None,
        lr_log_loss: Any = None,
        error_diff_se: Any = None,
        *,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.sizes = np.asarray(list(sizes), dtype=np.int64)
        self.nb_error = np.atleast_2d(np.asarray(nb_error, dtype=float))
        self.lr_error = np.atleast_2d(np.asarray(lr_error, dtype=float))
        shape = self.nb_error.shape
        self.nb_log_loss = np.full(shape, np.nan) if nb_log_loss is None else np.asarray(nb_log_loss, dtype=float)
        self.lr_log_loss = np.full(shape, np.nan) if lr_log_loss is None else np.asarray(lr_log_loss, dtype=float)
        self.error_diff_se = (
            np.full(shape, np.nan) if error_diff_se is None else np.asarray(error_diff_se, dtype=float)
        )
        for name in _DRAWS[1:]:
            if getattr(self, name).shape != shape:
                raise DataError(f"Comparison: {name} has shape {getattr(self, name).shape}, nb_error {shape}")
        if shape[0] != len(self.sizes):
            raise DataError(f"Comparison: {len(self.sizes)} sizes but nb_error has {shape[0]} rows")
        self.info = dict(info or {})

    # ------------------------------------------------------------------ summaries
    @property
    def table(self) -> list[Row]:
        """One :class:`Row` per training size, smallest first."""
        rows = []
        for i, m in enumerate(self.sizes.tolist()):
            used = ~(np.isnan(self.nb_error[i]) | np.isnan(self.lr_error[i]))
            nb_mean, nb_std = _mean_std(self.nb_error[i])
            lr_mean, lr_std = _mean_std(self.lr_error[i])
            rows.append(
                Row(
                    size=int(m),
                    nb_error_mean=nb_mean,
                    nb_error_std=nb_std,
                    lr_error_mean=lr_mean,
                    lr_error_std=lr_std,
                    n_repeats=int(used.sum()),
                    skipped=int((~used).sum()),
                    nb_log_loss_mean=_mean_std(self.nb_log_loss[i])[0],
                    lr_log_loss_mean=_mean_std(self.lr_log_loss[i])[0],
                )
            )
        return rows

    @property
    def crossover(self) -> int | None:
        """The smallest training size from which LR's mean error stays below NB's, or None."""
        t = self.table
        return crossover_size(
            [r.size for r in t], [r.nb_error_mean for r in t], [r.lr_error_mean for r in t]
        )

    def __repr__(self) -> str:
        return (
            f"Comparison(sizes={self.sizes.tolist()}, repeats={self.nb_error.shape[1]}, "
            f"crossover={self.crossover})"
        )

    # ------------------------------------------------------------------ export
    def to_dict(self) -> dict[str, Any]:
        """Plain Python (JSON-ready: NaN becomes None): info, table, crossover and every draw."""
        return {
            "info": self.info,
            "sizes": self.sizes.tolist(),
            "crossover": self.crossover,
            "table": [{k: _json_number(v) for k, v in r._asdict().items()} for r in self.table],
            "draws": {
                name: [[_json_number(v) for v in row] for row in getattr(self, name).tolist()]
                for name in _DRAWS
            },
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Comparison":
        """The inverse of :meth:`to_dict`."""
        draws = {k: np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
                 for k, rows in d["draws"].items()}
        return cls(d["sizes"], **draws, info=d.get("info"))

    def to_json(self, path: str | Path | None = None, *, indent: int = 2) -> str:
        """:meth:`to_dict` as JSON text; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=indent, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def to_markdown(self, *, digits: int = 1) -> str:
        """The table in Markdown (errors in %, mean ± standard deviation over the draws) and a
        line naming the crossover."""
        lines = [
            "| training rows m | NB error % | LR error % | NB log-loss | LR log-loss | draws |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for r in self.table:
            draws = str(r.n_repeats) + (f" ({r.skipped} skipped)" if r.skipped else "")
            lines.append(
                f"| {r.size} | {_pct(r.nb_error_mean, r.nb_error_std, digits, r.n_repeats)} | "
                f"{_pct(r.lr_error_mean, r.lr_error_std, digits, r.n_repeats)} | {_num(r.nb_log_loss_mean)} | "
                f"{_num(r.lr_log_loss_mean)} | {draws} |"
            )
        return "\n".join(lines) + "\n\n" + self._crossover_text() + "\n"

    def _crossover_text(self) -> str:
        c = self.crossover
        if c is None:
            return "Crossover: none (logistic regression's mean error is not below Naive Bayes' at the largest size)."
        if c == int(self.sizes[0]):
            return f"Crossover: logistic regression's mean error is below Naive Bayes' at every size (from m = {c})."
        return f"Crossover: logistic regression's mean error is below Naive Bayes' from m = {c} on."

    # ------------------------------------------------------------------ figures
    def _figure(self, title: str | None) -> Any:
        try:
            from matplotlib.figure import Figure
        except ImportError:
            raise MissingDependencyError(
                "Comparison.plot needs matplotlib, an optional dependency: pip install 'nbayes[plot]'"
            ) from None
        t = self.table
        m = np.array([r.size for r in t], dtype=float)
        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.subplots()
        for label, means, stds, color, marker in (
            ("Naive Bayes", [r.nb_error_mean for r in t], [r.nb_error_std for r in t], "tab:blue", "o"),
            ("logistic regression", [r.lr_error_mean for r in t], [r.lr_error_std for r in t], "tab:orange", "s"),
        ):
            mean, std = 100 * np.array(means), 100 * np.array(stds)
            ax.plot(m, mean, marker=marker, color=color, label=label, linewidth=1.6, markersize=4)
            ax.fill_between(m, mean - std, mean + std, color=color, alpha=0.15, linewidth=0)
        c = self.crossover
        if c is not None:
            ax.axvline(c, color="0.4", linestyle=":", linewidth=1.2, label=f"crossover m = {c}")
        if len(m) > 1 and m.min() > 0:
            from matplotlib.ticker import ScalarFormatter

            ax.set_xscale("log")
            plain = ScalarFormatter()
            plain.set_scientific(False)
            ax.xaxis.set_major_formatter(plain)
        ax.set_xlabel("training rows m (log scale)")
        ax.set_ylabel("test error % (mean ± sd over draws)")
        n_test = self.info.get("n_test")
        ax.set_title(title or "Naive Bayes vs logistic regression" + (f" ({n_test} test rows)" if n_test else ""))
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(frameon=False)
        return fig

    def plot(self, path: str | Path, *, title: str | None = None, dpi: int = 110) -> Path:
        """Write the two learning curves (mean test error ± sd against m, log scale, crossover
        marked) as a PNG to ``path``; needs matplotlib (``pip install 'nbayes[plot]'``)."""
        path = Path(path)
        self._figure(title).savefig(path, format="png", dpi=dpi)
        return path

    def to_html(self, path: str | Path, *, title: str | None = None, figure: bool | None = None) -> Path:
        """Write one self-contained HTML page (no external request): the figures (the learning
        curves and the log-loss, inline SVG drawn by nbayes: no matplotlib needed), the table,
        the crossover and the run's settings. ``figure=False`` leaves the figures out."""
        path = Path(path)
        heading = title or "Naive Bayes vs logistic regression: learning curves"
        img = ""
        if figure is None or figure:
            img = learning_curves_svg(self.table, self.crossover, title=title, n_test=self.info.get("n_test"))
        head = ["training rows m", "NB error %", "LR error %", "NB log-loss", "LR log-loss", "draws"]
        body = []
        for r in self.table:
            cells = [
                str(r.size), _pct(r.nb_error_mean, r.nb_error_std, 1), _pct(r.lr_error_mean, r.lr_error_std, 1),
                _num(r.nb_log_loss_mean), _num(r.lr_log_loss_mean),
                str(r.n_repeats) + (f" ({r.skipped} skipped)" if r.skipped else ""),
            ]
            body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        settings = "".join(
            f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in self.info.items()
        )
        page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(heading)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 52em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }}
th {{ background: #f4f4f4; }}
img, svg {{ max-width: 100%; height: auto; display: block; margin: 1em 0; }}
</style>
</head>
<body>
<h1>{html.escape(heading)}</h1>
{img}
<p>{html.escape(self._crossover_text())}</p>
<table>
<thead><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in head)}</tr></thead>
<tbody>
{chr(10).join(body)}
</tbody>
</table>
<h2>Settings</h2>
<table>{settings}</table>
</body>
</html>
"""
        path.write_text(page, encoding="utf-8")
        return path


def _json_number(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _pct(mean: float, std: float, digits: int, draws: int = 2) -> str:
    if math.isnan(mean):
        return "–"
    if draws < 2:  # one draw has no spread to show: "± 0.0" would claim one
        return f"{100 * mean:.{digits}f}"
    return f"{100 * mean:.{digits}f} ± {100 * std:.{digits}f}"


def _num(v: float) -> str:
    return "–" if math.isnan(v) else f"{v:.3f}"
