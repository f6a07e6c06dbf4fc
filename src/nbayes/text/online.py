"""A text model plus a small update without re-estimating the model (``partial_fit``, the
learning service).

:func:`plus` (``TextParams.plus``) gives the parameters ``set_statistics(stats_ + update)``
estimates for a multinomial :class:`~nbayes.text.TextClassifier` whose parameters are (class,
term) pairs (:mod:`nbayes.text._estimate`), without densifying or re-estimating the whole
model; :func:`add_counts` is a copy of a model holding them:

- the update's terms are found with the model's term table; the statistics' sum over the united
  sorted vocabulary (df / tf and the CSR per-class counts, each by one merge pass) is
  :func:`nbayes.stats.text_insert.add_sorted`'s; here the table gets the new terms (its hash
  slots renumbered, the new terms added: no rebuild);
- a pair's weight log(n_ct + alpha) - log(alpha) depends on its own count only: the update's
  pairs are recomputed and merged in, the others copied;
- the per-class default weight base_c = log(alpha) - log(n_c + alpha V) is recomputed for
  every class (O(classes)), with n_c summed in the same order as the full estimation.

The cost is the update's size plus one copy of the model's arrays (copy-on-write: the version
being served is never written), where the full estimation densified and re-derived every
pair. The result equals the full estimation bit for bit (tests/text/test_online.py). Anything
else (new classes, filters that drop terms, other models, a number that overflows) returns
None and the caller takes the general path.
"""

from __future__ import annotations

import copy
import numbers
import threading
import weakref
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._kernels.lookup import find_terms
from .._kernels.online import extend_slots, heavy_rows, inserted, merge_pairs, renumbered
from .._kernels.text import build
from .._kernels.text_parts import extended_parts
from .._validation import encode_labels
from ..stats.text import TextStats
from ..stats.text_insert import add_sorted
from .params import TextDelta, TextParams, _forget_empty
from .vocab import Pairs, TermTable

__all__ = ["add_counts", "built", "code_points", "find", "online_ready", "plus"]


def code_points(terms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(code points, start, length) of ``terms`` laid end to end, as a term table holds them."""
    items = terms.tolist()
    lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    starts = np.zeros(len(items), dtype=np.int64)
    if len(items):
        starts[1:] = np.cumsum(lengths)[:-1]
    cps = np.frombuffer("".join(items).encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32)
    return cps, starts, lengths


def find(table: TermTable, terms: np.ndarray) -> np.ndarray:
    """The id of each of ``terms`` in ``table`` (its position in the table's sorted terms), -1
    for a term it does not hold."""
    qcps, qstart, qlength = code_points(terms)
    ids: np.ndarray = find_terms(qcps, qstart, qlength, table.slots, table.start, table.length, table.cps)
    return ids


def online_ready(model: Any) -> bool:
    """Whether :func:`add_counts` can update ``model`` (settings and the form of its parameters)."""
    p = model.__dict__.get("params_")
    return isinstance(p, TextParams) and ready(p)


def ready(p: TextParams) -> bool:
    """Whether :func:`plus` can update the parameters ``p`` (their settings and form)."""
    s, m = p.stats, p.settings
    return bool(
        isinstance(s, TextStats) and s.weighted is None and s.terms.dtype == object
        and all(sp.issparse(c) and c.format == "csr" and c.has_canonical_format for c in (s.term_count, s.doc_count))
        and m.model == "multinomial" and not m.tfidf and m.n_features is None and "_layout" not in m.__dict__
        and isinstance(p.pairs, Pairs) and isinstance(p.table, TermTable)
        and len(p.vocab) == len(s.terms) == len(p.table)
        and np.ndim(m.alpha) == 0 and float(m.alpha) > 0
    )


def add_counts(model: Any, d: TextStats, classes: np.ndarray) -> Any:
    """A copy of ``model`` whose statistics are its own plus ``d`` (over ``classes``, a subset of
    the model's) and whose parameters are estimated from them (:func:`plus`), the model
    untouched; None when this path does not apply (the caller then uses ``set_statistics``)."""
    p = model.__dict__.get("params_")
    if not isinstance(p, TextParams) or "classes_" not in model.__dict__:
        return None
    cpos, unknown = encode_labels(classes, model.classes_)
    if unknown.any():
        return None
    new_p = plus(p, TextDelta(d, cpos))
    if new_p is None:
        return None
    new = copy.copy(model)
    new.take_parameters(new_p)
    built(new)
    return new


def plus(p: TextParams, delta: TextDelta) -> TextParams | None:
    """The parameters of ``p.stats`` plus ``delta.stats`` (of the model's classes at the
    positions ``delta.classes``), from the change alone; None when this path does not apply."""
    d = delta.stats
    if not ready(p) or not isinstance(d, TextStats) or d.weighted is not None or d.terms.dtype != object:
        return None
    cpos = np.asarray(delta.classes, dtype=np.int64)
    model = p.settings
    s: TextStats = p.stats
    table: TermTable = p.table
    K, dt = len(p.class_log_prior), d.terms
    # the statistics' sum over the united sorted vocabulary (nbayes.stats.text_insert), and
    # the update's entries of the counts estimation reads, summed
    summed = add_sorted(s, d, cpos, find(table, dt), model._presence)
    if summed is None:
        return None  # an overflow: the general path refuses it with its message
    stats, pos, ins, new_id, known = summed.stats, summed.pos, summed.ins, summed.new_id, summed.known
    terms, V = stats.terms, len(stats.terms)
    up, n, sums, cc = summed.entries, summed.values, summed.row_sums, stats.class_count
    a = float(model.alpha)
    if not _all_kept(model, stats, pos, d.n_docs):
        return None  # a filter (min_df, max_df, max_features) drops terms: the general path
    o = np.lexsort((up.rows, up.cols))  # by (term, class)
    P = p.pairs
    assert P is not None  # (ready)
    # a pair's weight log(n_ct + alpha) - log(alpha) depends on its own count only
    indptr, cls, delta_w = merge_pairs(P.indptr, P.cls, P.delta, new_id, V, up.cols[o], up.key[o], up.known[o],
                                       up.rows[o], np.log(n[o] + a) - np.log(a))
    # base_c = log(alpha) - log(n_c + alpha V), n_c summed as the full estimation sums it
    total = sums + a * V
    base = np.log(a) - np.log(total) if V else np.zeros(K)
    stats.table = _extended(table, terms, ins, dt[~known]) if len(ins) else table
    priors = model._inner().prior_parameters(cc)
    priors.update(_forget_empty(priors, cc))
    return TextParams(
        vocab=terms, keep=np.ones(V, dtype=bool), table=stats.table, pairs=Pairs(indptr, cls, delta_w, base),
        const=np.zeros(K), fast=True, class_log_prior=priors["class_log_prior_"], intercept=priors["_intercept"],
        stats=stats, settings=model,
    )


def _all_kept(model: Any, stats: TextStats, pos: np.ndarray, added_docs: float) -> bool:
    """Whether the vectoriser's filters keep every term of ``stats`` (the model's plus an
    update at the new ids ``pos``). The model kept all its terms (:func:`online_ready`), and an
    untouched term's df does not change: with no ``max_features``, a whole-number ``min_df``
    (a fixed bound) and documents added (a proportional ``max_df`` only grows), only the
    update's terms can fall outside the bounds, so only they are looked at (not O(terms))."""
    if model.max_features is None and isinstance(model.min_df, numbers.Integral) and added_docs >= 0:
        part = copy.copy(stats)
        part.df, part.tf = stats.df[pos], stats.tf[pos]
        return bool(model._active(part).all())
    return bool(model._active(stats).all())


def built(model: Any) -> Any:
    """``model`` with what its first prediction would build made now (the rows of full weights
    of its frequent terms, :meth:`Pairs.heavy`, and its n-grams' parts, :meth:`TermTable.parts`,
    in compiled passes without the GIL): the service calls it on a version before publishing
    it, so that no request pays for it."""
    p = model.__dict__.get("params_")
    if not isinstance(p, TextParams):
        return model
    pairs, table = p.pairs, p.table
    if isinstance(pairs, Pairs) and pairs._heavy is None:
        pairs._heavy = heavy_rows(pairs.indptr, pairs.cls, pairs.delta, pairs.base)
    if isinstance(table, TermTable):
        table.parts()  # the n-grams' parts (TermTable.parts), when a lookup would build them
    return model


def _pow2(n: int) -> int:
    return 1 << max(10, int(n - 1).bit_length())


def _extended(table: TermTable, terms: np.ndarray, ins: np.ndarray, fresh: np.ndarray) -> TermTable:
    """``table`` with the sorted ``fresh`` terms inserted before the old ids ``ins``: their
    code points appended, the hash slots renumbered and the new terms added (re-filled only
    when the table would be over half full, as :class:`TermTable` sizes it)."""
    cps_new, starts, lengths = code_points(fresh)
    cps = _append(table.cps, cps_new)
    start = inserted(table.start, ins, starts + len(table.cps))
    length = inserted(table.length, ins, lengths)
    n = len(terms)
    new_id, fresh_ids = renumbered(len(table.start), ins), ins + np.arange(len(ins))
    if 2 * n + 2 <= len(table.slots) // 2:
        slots = extend_slots(table.slots, new_id, cps_new, starts, lengths, fresh_ids)
    else:
        slots = np.full(2 * _pow2(2 * n + 2), -1, dtype=np.int64)
        build(cps, start, length, slots, np.zeros(n, dtype=np.int64))
    grown = TermTable.from_parts(terms, slots, start, length, cps, table._how())
    if table._parts is not None and grown.grams_by_ids():  # the n-grams' parts carried over, not rebuilt
        parts = np.empty((n, 2), dtype=np.int32)
        grown.set_parts(parts, extended_parts(table._parts, new_id, fresh_ids, slots, start, length, cps, parts))
    return grown


#: code point buffers this module made, with room at their end: id -> [the buffer, how much is used]
_BUFFERS: dict[int, list[Any]] = {}
_LOCK = threading.Lock()


def _append(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """``old`` followed by ``new`` (code points). When ``old`` is the used part of a buffer made
    here and nothing was appended after it yet, ``new`` is written into the buffer's free room
    (a table over ``old`` reads only within ``old``: the versions being served are untouched);
    otherwise (a second version from the same parent, no room) a new buffer with room to grow."""
    n, k = len(old), len(new)
    with _LOCK:
        base = old.base
        entry = _BUFFERS.get(id(base)) if isinstance(base, np.ndarray) else None
        if (entry is not None and entry[0]() is base and entry[1] == n and len(base) >= n + k
                and old.__array_interface__["data"][0] == base.__array_interface__["data"][0]):
            grown: np.ndarray = base
        else:
            grown = np.empty(max(2 * (n + k), 1024), dtype=np.uint32)
            grown[:n] = old
            entry = _BUFFERS[id(grown)] = [weakref.ref(grown, _forget(id(grown))), n]
        grown[n:n + k] = new
        entry[1] = n + k
        return grown[:n + k]


def _forget(key: int) -> Any:
    """The weak reference callback dropping the entry ``key`` of a buffer that is gone."""
    def drop(_: Any) -> None:
        _BUFFERS.pop(key, None)
    return drop
