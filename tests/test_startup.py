"""Start-up: what a process loads for a prediction (issue #26: a one-row predict is mostly imports).

SciPy is imported on first use (``nbayes._scipy``): importing nbayes and a command's module,
and loading and predicting with a model of dense statistics, load none of it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import nbayes

_LOAD_AND_PREDICT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import nbayes
    import nbayes.cli.predict, nbayes.cli.explain, nbayes.cli.info
    X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [3.0, 3.5]])
    for path in sys.argv[1:]:
        model = nbayes.load(path)
        Xm = X.astype(int) if "Categorical" in path else X
        model.predict_proba(Xm)
        model.explain(Xm[:1])
    g = nbayes.GaussianNB().fit(X, [0, 0, 1, 1])
    g.partial_fit(X[:2], [0, 1]).unlearn(X[:2], [0, 1])
    loaded = [m for m in sys.modules if m == "scipy" or m.startswith("scipy.")]
    assert not loaded, loaded[:5]
    """
)


def test_dense_models_load_and_predict_without_scipy(tmp_path: Path) -> None:
    """A fresh process imports nbayes and the predict / explain / info commands, loads four dense
    models from their files, predicts and explains, and fits and updates a GaussianNB, with no
    SciPy in ``sys.modules``."""
    X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [3.0, 3.5]])
    y = np.array([0, 0, 1, 1])
    paths = []
    for model in (nbayes.GaussianNB(), nbayes.MultinomialNB(), nbayes.BernoulliNB(), nbayes.CategoricalNB()):
        name = type(model).__name__
        model.fit(X.astype(int) if name == "CategoricalNB" else X, y).save(tmp_path / f"{name}.nbm")
        paths.append(str(tmp_path / f"{name}.nbm"))
    out = subprocess.run([sys.executable, "-c", _LOAD_AND_PREDICT, *paths], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]


def test_issparse_is_scipys_once_loaded() -> None:
    sp = pytest.importorskip("scipy.sparse")
    from nbayes._scipy import issparse, sparse

    assert issparse(sp.csr_matrix(np.eye(2))) and sparse.issparse(sp.csr_array(np.eye(2)))
    assert not issparse(np.eye(2)) and not issparse([[1.0]])
    assert sparse.csr_matrix is sp.csr_matrix
