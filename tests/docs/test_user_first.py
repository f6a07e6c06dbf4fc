"""The docs are written for users first (#29 item 3): an install line that works, a quickstart
and a page for scikit-learn users at the top of the site, guides titled by what a user does,
internals under a developer heading."""

from __future__ import annotations

import re

from .blocks import ROOT

DOCS = ROOT / "docs"


def test_the_install_line_says_what_works():
    for page in (ROOT / "README.md", DOCS / "index.md", DOCS / "quickstart.md"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"pip install nbayes\b", text), f"{page.name}: nbayes is on no package index"
    quick = (DOCS / "quickstart.md").read_text(encoding="utf-8")
    assert "python -m pip install ." in quick and "python -m build" in quick


def test_getting_started_comes_first_and_internals_last():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert nav.index("Quickstart: quickstart.md") < nav.index("User guide:") < nav.index("For developers:")
    assert nav.index("Coming from scikit-learn: sklearn.md") < nav.index("User guide:")
    assert nav.index("For developers:") < nav.index("Architecture: architecture.md")


def test_guides_are_titled_for_users():
    for page in DOCS.glob("*.md"):
        title = page.read_text(encoding="utf-8").splitlines()[0]
        assert "issue #" not in title and "slices" not in title, f"{page.name}: {title}"
    text = (DOCS / "text.md").read_text(encoding="utf-8")
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads[-1] == "## How it works (for developers)"
    assert text.index("reference") > text.index("## How it works (for developers)")  # kernel internals at the end


def test_the_sklearn_page_says_where_the_speed_comes_from():
    text = (DOCS / "sklearn.md").read_text(encoding="utf-8")
    for needle in ("Pipeline", "TextClassifier", "GridSearchCV", "SearchCV", "NaiveBayes", "26.5x",
                   "## Where the speed comes from"):
        assert needle in text
