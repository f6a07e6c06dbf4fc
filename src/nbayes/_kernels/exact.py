"""Exact-sum kernels (stats.exact, stats.moment_sums): canonical float expansions of sums and
the Gaussian moment cells, certified per entry; the compiled module (:mod:`._exact`) and its
NumPy twin (nbayes.stats.expansion)."""

from __future__ import annotations

from ._exact import OUT, canonical, moment_cells

__all__ = ["OUT", "canonical", "moment_cells"]
