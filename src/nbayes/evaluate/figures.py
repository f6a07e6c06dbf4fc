"""Figures as inline SVG, written by nbayes itself (no matplotlib): the learning curves of
:func:`nbayes.compare`, a confusion matrix, a reliability diagram. Each function returns one
``<svg>`` element (well-formed XML, its own ``xmlns``), to be pasted into an HTML page, that
makes no external request.

Conventions the tests count on: every data point is a ``<circle class="point">``, every cell of
a confusion matrix a ``<rect class="cell">``, every bar of the share of rows per confidence bin
a ``<rect class="bar">``; points with a missing (NaN) value are left out.
"""

from __future__ import annotations

import math
from html import escape
from typing import NamedTuple, Sequence

import numpy as np

__all__ = ["Curve", "Series", "confusion_svg", "learning_curves_svg", "line_chart", "reliability_svg"]

#: the colours of the series, in order (matplotlib's first four, readable on white)
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
_FONT = 'font-family="system-ui,sans-serif" font-size="12"'


class Series(NamedTuple):
    """One curve of :func:`line_chart`: its name, x and y values, and optionally a band
    (``low``, ``high``) drawn around it."""

    name: str
    x: Sequence[float]
    y: Sequence[float]
    low: Sequence[float] | None = None
    high: Sequence[float] | None = None


def _t(text: object) -> str:
    return escape(str(text), quote=True)


def _num(v: float) -> str:
    return f"{v:.1f}"


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round ticks covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else [0.0]
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + k * step, 12) for k in range(int((hi - first) / step + 1e-9) + 1)]


def _open(width: int, height: int, title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{_t(title)}" {_FONT}>',
        f"<title>{_t(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
        f'<text x="{width / 2:.1f}" y="18" text-anchor="middle" font-size="14">{_t(title)}</text>',
    ]


def line_chart(series: Sequence[Series], *, title: str, xlabel: str, ylabel: str, xlog: bool = False,
               vline: tuple[float, str] | None = None, width: int = 640, height: int = 360) -> str:
    """Curves of ``series`` against a shared x axis (log scale with ``xlog`` when every x is
    positive), each with its points, its band if given, and a legend; ``vline``: a dashed
    vertical line at x with its label."""
    left, right, top, bottom = 64, 16, 48, 48
    xs = np.concatenate([np.asarray(s.x, dtype=float) for s in series]) if series else np.zeros(0)
    ys = [np.asarray(v, dtype=float) for s in series for v in (s.y, s.low, s.high) if v is not None]
    yv = np.concatenate(ys) if ys else np.zeros(0)
    yv = yv[np.isfinite(yv)]
    xlog = xlog and len(xs) > 0 and bool(np.all(xs > 0))
    fx = np.log10 if xlog else (lambda a: a)
    x0, x1 = (float(fx(xs.min())), float(fx(xs.max()))) if len(xs) else (0.0, 1.0)
    if x1 <= x0:
        x0, x1 = x0 - 0.5, x1 + 0.5
    y0, y1 = (float(yv.min()), float(yv.max())) if len(yv) else (0.0, 1.0)
    pad = 0.05 * (y1 - y0) if y1 > y0 else max(abs(y0) * 0.1, 0.5)
    y0, y1 = y0 - pad, y1 + pad
    pw, ph = width - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + (float(fx(np.float64(x))) - x0) / (x1 - x0) * pw

    def py(y: float) -> float:
        return top + (y1 - y) / (y1 - y0) * ph

    out = _open(width, height, title)
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
    for v in _ticks(y0, y1):
        if y0 <= v <= y1:
            out.append(f'<line x1="{left}" x2="{left + pw}" y1="{_num(py(v))}" y2="{_num(py(v))}" stroke="#eee"/>')
            out.append(f'<text x="{left - 6}" y="{_num(py(v) + 4)}" text-anchor="end">{v:g}</text>')
    xticks = sorted({float(v) for v in xs}) if xlog or len(set(xs.tolist())) <= 12 else _ticks(x0, x1)
    if len(xticks) > 12:
        xticks = xticks[:: math.ceil(len(xticks) / 12)]
    for v in xticks:
        out.append(f'<text x="{_num(px(v))}" y="{top + ph + 16}" text-anchor="middle">{v:g}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 8}" text-anchor="middle">{_t(xlabel)}</text>')
    out.append(f'<text transform="translate(14 {top + ph / 2:.1f}) rotate(-90)" text-anchor="middle">{_t(ylabel)}</text>')
    if vline is not None and x0 <= float(fx(np.float64(vline[0]))) <= x1:
        vx = _num(px(vline[0]))
        out.append(f'<line x1="{vx}" x2="{vx}" y1="{top}" y2="{top + ph}" stroke="#666" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{vx}" y="{top + 12}" dx="4">{_t(vline[1])}</text>')
    for k, s in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        x, y = np.asarray(s.x, dtype=float), np.asarray(s.y, dtype=float)
        ok = np.isfinite(y)
        if s.low is not None and s.high is not None:
            lo, hi = np.asarray(s.low, dtype=float), np.asarray(s.high, dtype=float)
            band = ok & np.isfinite(lo) & np.isfinite(hi)
            if band.sum() > 1:
                edge = [f"{_num(px(a))},{_num(py(b))}" for a, b in zip(x[band], hi[band])]
                edge += [f"{_num(px(a))},{_num(py(b))}" for a, b in zip(x[band][::-1], lo[band][::-1])]
                out.append(f'<polygon class="band" points="{" ".join(edge)}" fill="{colour}" fill-opacity="0.15"/>')
        if ok.sum() > 1:
            pts = " ".join(f"{_num(px(a))},{_num(py(b))}" for a, b in zip(x[ok], y[ok]))
            out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        for a, b in zip(x[ok], y[ok]):
            out.append(f'<circle class="point" cx="{_num(px(a))}" cy="{_num(py(b))}" r="3" fill="{colour}">'
                       f"<title>{_t(s.name)}: {a:g}, {b:.4g}</title></circle>")
        lx = left + sum(40 + 7 * len(p.name) for p in series[:k])  # the legend: one row above the plot
        out.append(f'<rect x="{lx}" y="{top - 19}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{lx + 15}" y="{top - 10}">{_t(s.name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _short(label: object, n: int = 16) -> str:
    text = str(label)
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def confusion_svg(labels: Sequence[object], matrix: Sequence[Sequence[int]], *, title: str = "Confusion matrix") -> str:
    """The confusion matrix (rows: true class, columns: predicted) as a grid of cells, each
    shaded by its share of the true class's rows and labelled with its count (when the grid is
    small enough to read)."""
    M = np.asarray(matrix, dtype=float).reshape(len(labels), len(labels))
    n = len(labels)
    cell = max(12, min(44, 480 // max(n, 1)))
    left, top = 130, 110
    width, height = max(left + n * cell + 20, 7 * len(title) + 40), top + n * cell + 30
    rows = M.sum(axis=1, keepdims=True)
    share = np.divide(M, rows, out=np.zeros_like(M), where=rows > 0)
    out = _open(width, height, title)
    out.append(f'<text x="{left + n * cell / 2:.1f}" y="40" text-anchor="middle">predicted</text>')
    out.append(f'<text x="12" y="{top - 8}">true</text>')
    for j, lab in enumerate(labels):
        cx = left + j * cell + cell / 2
        out.append(f'<text transform="translate({cx:.1f} {top - 6}) rotate(-45)">{_t(_short(lab))}</text>')
    for i, lab in enumerate(labels):
        cy = top + i * cell
        out.append(f'<text x="{left - 6}" y="{cy + cell / 2 + 4:.1f}" text-anchor="end">{_t(_short(lab))}</text>')
        for j in range(n):
            s = float(share[i, j])
            colour = f"rgb({int(255 - 200 * s)},{int(255 - 140 * s)},{int(255 - 60 * s)})"
            out.append(f'<rect class="cell" x="{left + j * cell}" y="{cy}" width="{cell}" height="{cell}" '
                       f'fill="{colour}" stroke="#fff"><title>true {_t(lab)}, predicted {_t(labels[j])}: '
                       f"{int(M[i, j]):,}</title></rect>")
            if cell >= 28:
                ink = "#fff" if s > 0.6 else "#222"
                out.append(f'<text x="{left + j * cell + cell / 2:.1f}" y="{cy + cell / 2 + 4:.1f}" '
                           f'text-anchor="middle" fill="{ink}" font-size="11">{int(M[i, j]):,}</text>')
    out.append("</svg>")
    return "\n".join(out)


class Curve(NamedTuple):
    """One curve of :func:`reliability_svg`: per non-empty bin its mean confidence, observed
    accuracy and share of rows, and the curve's ECE."""

    name: str
    confidence: Sequence[float]
    accuracy: Sequence[float]
    weight: Sequence[float]
    ece: float


def reliability_svg(curves: Sequence[Curve], *, n_bins: int, title: str = "Reliability diagram",
                    size: int = 360) -> str:
    """Observed accuracy against mean confidence per bin for each curve, the diagonal of
    perfect calibration, and below it the share of rows per bin (one bar per curve and
    non-empty bin)."""
    left, top, gap, strip = 56, 30, 36, 70
    width = left + size + 24
    height = top + size + gap + strip + 36
    out = _open(width, height, title)

    def px(v: float) -> float:
        return left + v * size

    def py(v: float) -> float:
        return top + (1 - v) * size

    out.append(f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="#999"/>')
    for v in (0, 0.25, 0.5, 0.75, 1):
        out.append(f'<line x1="{left}" x2="{left + size}" y1="{_num(py(v))}" y2="{_num(py(v))}" stroke="#eee"/>')
        out.append(f'<text x="{left - 6}" y="{_num(py(v) + 4)}" text-anchor="end">{v:g}</text>')
        out.append(f'<text x="{_num(px(v))}" y="{top + size + gap + strip + 16}" text-anchor="middle">{v:g}</text>')
    out.append(f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(1)}" y2="{py(1)}" stroke="#888" stroke-dasharray="4 3"/>')
    out.append(f'<text transform="translate(14 {top + size / 2:.1f}) rotate(-90)" text-anchor="middle">observed accuracy</text>')
    base = top + size + gap + strip
    out.append(f'<line x1="{left}" x2="{left + size}" y1="{base}" y2="{base}" stroke="#999"/>')
    out.append(f'<text x="{left - 6}" y="{base - strip + 10}" text-anchor="end" font-size="10">share</text>')
    out.append(f'<text x="{left + size / 2:.1f}" y="{height - 4}" text-anchor="middle">top-label confidence '
               f"({n_bins} equal-width bins)</text>")
    bw = size / n_bins / (len(curves) + 1)
    for k, c in enumerate(curves):
        colour = COLOURS[k % len(COLOURS)]
        conf = np.asarray(c.confidence, dtype=float)
        acc = np.asarray(c.accuracy, dtype=float)
        w = np.asarray(c.weight, dtype=float)
        if len(conf) > 1:
            pts = " ".join(f"{_num(px(a))},{_num(py(b))}" for a, b in zip(conf, acc))
            out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        for a, b, s in zip(conf, acc, w):
            out.append(f'<circle class="point" cx="{_num(px(a))}" cy="{_num(py(b))}" r="3" fill="{colour}">'
                       f"<title>{_t(c.name)}: confidence {a:.3f}, accuracy {b:.3f}, {100 * s:.1f}% of rows</title></circle>")
            b_id = min(max(int(a * n_bins), 0), n_bins - 1)
            h = strip * math.sqrt(max(float(s), 0.0))  # square root: small bins stay visible
            x = left + b_id * size / n_bins + (k + 0.5) * bw
            out.append(f'<rect class="bar" x="{_num(x)}" y="{_num(base - h)}" width="{_num(bw)}" height="{_num(h)}" '
                       f'fill="{colour}" fill-opacity="0.8"/>')
        ly = top + 16 + 16 * k
        out.append(f'<rect x="{left + 8}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{left + 23}" y="{ly}">{_t(c.name)} (ECE {c.ece:.3f})</text>')
    out.append("</svg>")
    return "\n".join(out)


def learning_curves_svg(table: Sequence[object], crossover: int | None, *, title: str | None = None,
                        n_test: int | None = None) -> str:
    """The two learning curves of a :class:`~nbayes.evaluate.comparison.Comparison` (its
    ``table`` rows): test error % (mean and ± sd band over the draws) against the training
    size, log scale, the crossover marked; then both models' mean test log-loss."""
    sizes = [float(getattr(r, "size")) for r in table]

    def col(name: str, scale: float = 1.0) -> np.ndarray:
        return scale * np.asarray([float(getattr(r, name)) for r in table], dtype=float)

    curves = []
    for name, key in (("Naive Bayes", "nb"), ("logistic regression", "lr")):
        mean, sd = col(f"{key}_error_mean", 100), col(f"{key}_error_std", 100)
        curves.append(Series(name, sizes, mean.tolist(), (mean - sd).tolist(), (mean + sd).tolist()))
    heading = title or "Naive Bayes vs logistic regression" + (f" ({n_test} test rows)" if n_test else "")
    mark = None if crossover is None else (float(crossover), f"crossover m = {crossover}")
    error = line_chart(curves, title=heading, xlabel="training rows m (log scale)",
                       ylabel="test error % (mean \u00b1 sd)", xlog=True, vline=mark)
    losses = [Series("Naive Bayes", sizes, col("nb_log_loss_mean").tolist()),
              Series("logistic regression", sizes, col("lr_log_loss_mean").tolist())]
    loss = line_chart(losses, title="Test log-loss (mean over draws)", xlabel="training rows m (log scale)",
                      ylabel="log-loss", xlog=True, height=300)
    return error + "\n" + loss
