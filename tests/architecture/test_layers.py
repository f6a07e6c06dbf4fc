"""Layers that only point down (docs/architecture.md), pinned from the source.

Every import of an nbayes module, inside functions too, goes from a layer to the same layer or a
lower one; nbayes' modules form no import cycle. The lists of known exceptions below are what
is left of the first version's shape: they may only shrink (a stale entry fails the test too).
"""

from __future__ import annotations

import collections

from .imports import SRC, imports, module_name

#: lowest first; a module belongs to the layer of its longest matching prefix
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("boundary", ("nbayes.errors", "nbayes._validation", "nbayes.validation", "nbayes._tables", "nbayes._kernels", "nbayes._math",
                  "nbayes._scipy", "nbayes._progress", "nbayes._frames", "nbayes._lazy")),
    ("estimator", ("nbayes._estimator", "nbayes._prior_shift")),
    ("statistics", ("nbayes.stats", "nbayes.io.model_file")),
    ("models", ("nbayes.linear", "nbayes.naive_bayes", "nbayes.gaussian_bayes", "nbayes.text")),
    ("bridges", ("nbayes.semi_supervised", "nbayes.calibration", "nbayes.model_selection",
                 "nbayes.evaluate", "nbayes.compare", "nbayes.metrics", "nbayes.multilabel",
                 "nbayes.shift", "nbayes.active")),
    ("applications", ("nbayes", "nbayes.io", "nbayes.cli", "nbayes._cli", "nbayes.serve",
                      "nbayes.dask", "nbayes.demo", "nbayes.testing")),
]

#: (importing package, imported package) pairs that still point up: to be removed
KNOWN_UPWARD: set[tuple[str, str]] = set()

#: import cycles that still exist (as sets of modules): to be removed
KNOWN_CYCLES: list[set[str]] = [
]


def layer_of(module: str) -> tuple[int, str]:
    best = (-1, -1, "")
    for rank, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best[1]:
                best = (rank, len(p), p)
    assert best[0] >= 0, f"module {module} belongs to no layer: add it to LAYERS"
    return best[0], best[2]


def test_every_module_has_a_layer():
    for importer, imported, _, _ in imports():
        layer_of(importer)
        layer_of(imported)


def test_imports_point_down():
    found: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for importer, imported, line, _ in imports():
        (ra, pa), (rb, pb) = layer_of(importer), layer_of(imported)
        if rb > ra:
            found[(pa, pb)].append(f"{importer}:{line} imports {imported}")
    new = {k: v for k, v in found.items() if k not in KNOWN_UPWARD}
    assert not new, "imports that point up a layer:\n" + "\n".join(x for v in new.values() for x in v)
    stale = KNOWN_UPWARD - set(found)
    assert not stale, f"remove these fixed entries from KNOWN_UPWARD: {sorted(stale)}"


def _cycles() -> list[set[str]]:
    edges = imports()
    modules = {module_name(p) for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = collections.defaultdict(set)
    for a, b, _, _ in edges:
        while b not in modules and "." in b:
            b = b.rsplit(".", 1)[0]
        if b != a and b in modules:
            graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(modules):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    cycles = _cycles()
    new = [c for c in cycles if not any(c <= k for k in KNOWN_CYCLES)]
    assert not new, f"import cycles (imports inside functions count): {[sorted(c) for c in new]}"
    stale = [k for k in KNOWN_CYCLES if not any(c <= k and len(c) > 1 for c in cycles)]
    assert not stale, f"remove these broken cycles from KNOWN_CYCLES: {[sorted(k) for k in stale]}"


#: imports of nbayes modules written inside functions (importer, imported): an import inside a
#: function is for an optional dependency only; these are left from the first version (180 then)
#: and may only shrink
KNOWN_FUNCTION_IMPORTS: set[tuple[str, str]] = {
    ('nbayes.cli.serve', 'nbayes.serve.app'),
    ('nbayes.cli.train', 'nbayes.dask'),
    ('nbayes.naive_bayes.bernoulli', 'nbayes.linear.transforms'),
    ('nbayes.naive_bayes.categorical', 'nbayes.linear.transforms'),
    ('nbayes.naive_bayes.mixed', 'nbayes.text.columns'),
    ('nbayes.serve', 'nbayes.serve.app'),
    ('nbayes.serve._openapi', 'nbayes'),
    ('nbayes.serve.app', 'nbayes.serve._openapi'),
    ('nbayes.text.columns', 'nbayes._validation'),
    ('nbayes.text.columns', 'nbayes.stats.checks'),
}


def test_nbayes_modules_are_imported_at_module_level():
    found = {(a, b) for a, b, _, inside in imports() if inside}
    new = found - KNOWN_FUNCTION_IMPORTS
    assert not new, f"imports of nbayes modules inside functions (move them to the top): {sorted(new)}"
    stale = KNOWN_FUNCTION_IMPORTS - found
    assert not stale, f"remove these fixed entries from KNOWN_FUNCTION_IMPORTS: {sorted(stale)}"


def test_at_most_ten_function_imports():
    """Issue 28: an import inside a function is for an optional or heavy dependency (the web
    stack, Dask, OpenAPI's generator) only; at most 10 are left."""
    assert len(KNOWN_FUNCTION_IMPORTS) <= 10, sorted(KNOWN_FUNCTION_IMPORTS)
