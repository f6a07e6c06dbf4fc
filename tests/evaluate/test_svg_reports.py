"""The reports draw their figures as inline SVG written by nbayes (no matplotlib): the learning
curves, the confusion matrix, the reliability diagram; each SVG is well-formed XML with one
point per data point and one cell per confusion-matrix entry, and no page holds a Markdown
table or a note to install matplotlib."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import nbayes
from nbayes import evaluate
from nbayes.evaluate import reliability_curve
from nbayes.evaluate.figures import Curve, Series, confusion_svg, line_chart, reliability_svg
from nbayes.evaluate.comparison import Comparison

SVG = "{http://www.w3.org/2000/svg}"


def svgs(page: str) -> list[ET.Element]:
    """Every <svg> element of an HTML page, parsed as XML (a parse error fails the test)."""
    found = re.findall(r"<svg\b.*?</svg>", page, flags=re.S)
    return [ET.fromstring(s) for s in found]


def count(root: ET.Element, tag: str, cls: str) -> int:
    return sum(1 for e in root.iter(f"{SVG}{tag}") if e.get("class") == cls)


def no_fallbacks(page: str) -> None:
    assert "|---" not in page and "|:--" not in page and "---:|" not in page
    assert "matplotlib" not in page and "nbayes[plot]" not in page
    for external in ("http://", "https://", "<script", "<link", "@import", "url("):
        assert external not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


@pytest.fixture(name="no_matplotlib")
def _no_matplotlib(monkeypatch):
    """The core install: importing matplotlib fails."""
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.pyplot", "matplotlib.ticker"):
        monkeypatch.setitem(sys.modules, name, None)


def test_line_chart_points_and_nan(tmp_path):
    svg = line_chart([Series("a", [1, 2, 4, 8], [0.1, np.nan, 0.3, 0.2], [0, 0, 0.2, 0.1], [0.2, 0.2, 0.4, 0.3]),
                      Series("b & <c>", [1, 2, 4, 8], [0.5, 0.4, 0.3, 0.2])],
                     title="t <&>", xlabel="x", ylabel="y", xlog=True, vline=(4, "m = 4"))
    root = ET.fromstring(svg)
    assert count(root, "circle", "point") == 3 + 4  # the NaN point left out
    assert count(root, "polygon", "band") == 1
    assert "b &amp; &lt;c&gt;" in svg


@pytest.mark.parametrize("n", [1, 2, 5, 20])
def test_confusion_cells(n):
    labels = [f"class {i} with a rather long name" for i in range(n)]
    M = np.arange(n * n).reshape(n, n)
    root = ET.fromstring(confusion_svg(labels, M.tolist()))
    cells = [e for e in root.iter(f"{SVG}rect") if e.get("class") == "cell"]
    assert len(cells) == n * n
    assert cells[-1].find(f"{SVG}title").text.endswith(f"{int(M[-1, -1]):,}")


def test_reliability_points_match_the_nonempty_bins(rng):
    y = rng.integers(0, 3, 500)
    P = rng.dirichlet(np.ones(3), 500)
    c = reliability_curve(y, P, classes=[0, 1, 2], n_bins=15)
    root = ET.fromstring(reliability_svg([Curve("a", c.confidence, c.accuracy, c.weight, 0.1)] * 2, n_bins=15))
    assert count(root, "circle", "point") == 2 * len(c.confidence)
    assert count(root, "rect", "bar") == 2 * len(c.confidence)


def test_evaluate_report_without_matplotlib(rng, tmp_path, no_matplotlib):
    X = rng.poisson(2.0, (300, 8))
    y = np.where(X[:, 0] + rng.normal(0, 1, 300) > 2, "a", np.where(X[:, 1] > 2, "b", "c"))
    model = nbayes.MultinomialNB().fit(X[:200], y[:200])
    P = model.predict_proba(X[200:])
    result = evaluate.classification_measures(y[200:], model.predict(X[200:]), P, model.classes_)
    curves = evaluate.uncalibrated_curves(y[200:], P, model.classes_)
    page = evaluate.write_report(tmp_path / "r.html", result, curves, "blobs").read_text()
    figures = svgs(page)
    assert len(figures) == 2
    n = len(result["labels"])
    assert sum(count(f, "rect", "cell") for f in figures) == n * n
    bins = reliability_curve(y[200:], P, classes=model.classes_, n_bins=evaluate.N_BINS)
    assert sum(count(f, "circle", "point") for f in figures) == len(bins.confidence)
    no_fallbacks(page)


def test_evaluate_report_before_and_after(rng, tmp_path):
    X = rng.poisson(2.0, (240, 6))
    y = np.where(X[:, 0] > 2, "yes", "no")
    folds = [np.arange(k, 240, 3) for k in range(3)]
    out, curves = evaluate.cross_validated_calibration(nbayes.MultinomialNB, lambda m, rows: X[rows], y, folds,
                                                       "temperature")
    model = nbayes.MultinomialNB().fit(X, y)
    result = evaluate.classification_measures(y, model.predict(X), model.predict_proba(X), model.classes_)
    result["calibration"] = out
    page = evaluate.write_report(tmp_path / "r.html", result, curves, "x").read_text()
    (rel,) = [f for f in svgs(page) if count(f, "circle", "point")]
    expected = sum(len(reliability_curve(y, P, classes=curves.classes, n_bins=evaluate.N_BINS).confidence)
                   for P in (curves.before, curves.after))
    assert count(rel, "circle", "point") == expected
    assert "after calibration" in page
    no_fallbacks(page)


def test_comparison_html_draws_the_curves_without_matplotlib(tmp_path, no_matplotlib):
    nb = np.array([[0.30, 0.28], [0.2, 0.22], [0.15, np.nan], [0.14, 0.14]])
    lr = np.array([[0.40, 0.35], [0.25, 0.2], [0.12, np.nan], [0.10, 0.10]])
    result = Comparison([4, 16, 64, 256], nb, lr, info={"n_test": 100})
    page = result.to_html(tmp_path / "c.html").read_text()
    error, loss = svgs(page)
    assert count(error, "circle", "point") == 2 * 4 and count(error, "polygon", "band") == 2
    assert "crossover m = 64" in ET.tostring(error, encoding="unicode")
    no_fallbacks(page)
    assert not svgs(result.to_html(tmp_path / "c.html", figure=False).read_text())


def test_demo_report_complete_with_the_core_install(tmp_path, no_matplotlib, capsys):
    from nbayes.demo import run

    run(report=str(tmp_path / "demo.html"))
    printed = capsys.readouterr().out
    assert "raw -> calibrated" in printed
    page = (tmp_path / "demo.html").read_text(encoding="utf-8")
    no_fallbacks(page)
    figures = svgs(page)
    assert len(figures) == 5  # confusion matrix, error and log-loss curves, 2 reliability diagrams
    assert sum(count(f, "rect", "cell") for f in figures) == 4
    sizes = re.findall(r"<tr><td>(\d+)</td>", page)
    assert count(figures[1], "circle", "point") == 2 * len(sizes)  # NB and LR at every size
    assert "Raw and calibrated probabilities" in page
    raw = re.findall(r"<tr><th>raw</th><td>([0-9.]+)</td><td>([0-9.]+)</td>", page)
    cal = re.findall(r"<tr><th>calibrated</th><td>([0-9.]+)</td><td>([0-9.]+)</td>", page)
    assert len(raw) == len(cal) == 2
    # the house votes: Naive Bayes over-confident, temperature scaling lowers its log-loss a lot
    assert float(cal[0][0]) < 0.6 * float(raw[0][0])
