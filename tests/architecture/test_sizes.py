"""One concept per module (issue #28): no module of the package over 500 lines; a module that
grows past it is split by concept, not given an exception here."""

from __future__ import annotations

from .imports import SRC

LIMIT = 500


def test_no_module_over_500_lines():
    over = {str(p.relative_to(SRC.parent)): n for p in sorted(SRC.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > LIMIT}
    assert not over, f"modules over {LIMIT} lines (split them by concept): {over}"
