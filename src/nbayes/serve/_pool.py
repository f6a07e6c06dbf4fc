"""Active learning in the service: a pool of unlabelled items registered once (``POST
/v1/pool``), the items most worth labelling handed out under leases (``POST /v1/suggest``), and
labels learned through the durable learning path (``POST /v1/label``). Nothing here imports the
web framework.

The pool is an :class:`nbayes.active.Pool` (text tokenised and counted once, at registration)
held in memory: a restart forgets it (the labels learned stay: they are in the model). A lease
gives an item to one annotator for ``lease_seconds``: no other annotator is offered it while the
lease lives; labelling the item (or the lease expiring) ends it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..active import Pool
from ..active import suggest as choose
from ..errors import InvalidParameterError
from ._model import Problem, plain, plain_floats

#: a lease's length by default (s)
LEASE_SECONDS = 900.0
#: the most items a pool may hold by default
MAX_POOL = 100_000
#: the longest id and annotator name (characters)
MAX_NAME = 200


def clock() -> float:
    """The leases' clock (monotonic seconds; tests may replace it)."""
    return time.monotonic()


@dataclass
class Lease:
    annotator: str
    until: float  # clock()


class LeasedPool:
    """One registered pool: its items (as sent, to answer with), ids, leases, and which items
    are labelled or being labelled. Every method is thread-safe (one lock: a suggestion is
    computed under it, so two annotators never race for an item)."""

    def __init__(self, model: Any, X: Any, items: list[Any], ids: list[str], lease_seconds: float) -> None:
        self.pool = Pool(model, X)  # tokenised and counted once
        self.items = items
        self.ids = ids
        self.index = {k: i for i, k in enumerate(ids)}
        self.lease_seconds = float(lease_seconds)
        self.leases: dict[int, Lease] = {}
        self.busy: set[int] = set()  # being learned (between the check and the durable answer)
        self.registered_at = time.time()
        self.lock = threading.Lock()

    def _expire(self, now: float) -> None:
        for i in [i for i, lease in self.leases.items() if lease.until <= now]:
            del self.leases[i]

    def suggest(self, model: Any, annotator: str, k: int, strategy: str, seed: int | None) -> tuple[list[int], np.ndarray, float]:
        """(the indices of up to ``k`` items for ``annotator``, best first, each now leased to
        them; their log-posteriors; the leases' end (clock)). Items leased to another annotator,
        labelled, or being labelled are never offered; the annotator's own leased items may be
        offered again (their lease renewed)."""
        with self.lock:
            now = clock()
            self._expire(now)
            blocked = self.pool.labelled.copy()
            others = [i for i, lease in self.leases.items() if lease.annotator != annotator]
            blocked[np.asarray(others + sorted(self.busy), dtype=np.int64)] = True
            until = now + self.lease_seconds
            if blocked.all():
                return [], np.zeros((0, len(model.classes_))), until
            saved = self.pool.labelled
            self.pool.labelled = blocked  # what suggest skips
            try:
                with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
                    picks = choose(model, self.pool, k, strategy=strategy, random_state=seed).tolist()
                    L = self.pool.log_proba(np.asarray(picks, dtype=np.int64))
            except InvalidParameterError as exc:  # a strategy this model cannot use
                raise Problem(409, str(exc)) from None
            finally:
                self.pool.labelled = saved
            for i in picks:
                self.leases[i] = Lease(annotator, until)
            return picks, L, until

    def claim(self, ids: list[str], annotator: str | None) -> list[int]:
        """The indices of ``ids``, marked as being labelled (so no one else labels or is offered
        them meanwhile): 404 for an unknown id; 409 for an item labelled (or being labelled)
        already, or leased to another annotator than ``annotator`` (when given)."""
        with self.lock:
            self._expire(clock())
            rows = []
            for k in ids:
                i = self.index.get(k)
                if i is None:
                    raise Problem(404, f"no item with id {k!r} in the pool ({len(self.ids):,} items; ids are "
                                       "those given at registration, or positions '0', '1', ...)")
                if self.pool.labelled[i] or i in self.busy:
                    raise Problem(409, f"item {k!r} is labelled already")
                lease = self.leases.get(i)
                if annotator is not None and lease is not None and lease.annotator != annotator:
                    raise Problem(409, f"item {k!r} is leased to annotator {lease.annotator!r} for another "
                                       f"{max(lease.until - clock(), 0.0):.0f} s")
                rows.append(i)
            self.busy.update(rows)
            return rows

    def done(self, rows: list[int], learned: bool) -> None:
        """End the claim of :meth:`claim`: the rows learned (labelled: never offered again, their
        leases ended), or not (back in the pool as they were)."""
        with self.lock:
            self.busy.difference_update(rows)
            if learned:
                self.pool.mark(rows)
                for i in rows:
                    self.leases.pop(i, None)

    def status(self) -> dict[str, Any]:
        """Counts of the pool's items (and the live leases per annotator)."""
        with self.lock:
            self._expire(clock())
            labelled = int(self.pool.labelled.sum())
            per: dict[str, int] = {}
            for lease in self.leases.values():
                per[lease.annotator] = per.get(lease.annotator, 0) + 1
            return {"size": len(self.ids), "labelled": labelled, "leased": len(self.leases),
                    "available": len(self.ids) - labelled - len(self.leases) - len(self.busy),
                    "leases": per, "lease_seconds": self.lease_seconds,
                    "registered_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.registered_at))}

    def answer(self, rows: list[int], L: np.ndarray, keys: list[str], classes: list[Any], kind: str,
               names: list[str]) -> list[dict[str, Any]]:
        """The suggested items as JSON: id, the text or row, the label now predicted and the
        probabilities."""
        out = []
        for i, lp in zip(rows, L):
            item = self.items[i]
            P = np.exp(lp)
            entry: dict[str, Any] = {"id": self.ids[i]}
            entry["text" if kind == "text" else "row"] = item if kind == "text" else {
                n: plain(v) for n, v in zip(names, item)}
            entry["label"] = classes[int(np.argmax(lp))]
            entry["probabilities"] = dict(zip(keys, plain_floats(P)))
            out.append(entry)
        return out


def pool_input(body: dict[str, Any], kind: str) -> tuple[str, list[Any], list[str]]:
    """(field, the items, their ids) of a ``/v1/pool`` body: ``{"texts": [...]}`` (ids: the
    positions "0", "1", ...) or ``{"texts": {id: text, ...}}`` (``rows`` for a table model)."""
    name = "texts" if kind == "text" else "rows"
    other = "rows" if kind == "text" else "texts"
    if other in body or ("text" if kind == "text" else "row") in body:
        wrong = other if other in body else ("text" if kind == "text" else "row")
        raise Problem(422, f"a pool of this {'text' if kind == 'text' else 'table'} model is {{{name!r}: [...]}} or "
                           f"{{{name!r}: {{id: ...}}}}, not {wrong!r}")
    unknown = [k for k in body if k != name]
    if unknown:
        raise Problem(422, f"unknown field {unknown[0]!r}; a pool is {{{name!r}: [...]}} or {{{name!r}: {{id: ...}}}}")
    if name not in body:
        raise Problem(422, f"missing field {name!r}: the pool's items, as an array or an object id -> item")
    raw = body[name]
    if isinstance(raw, list):
        return name, raw, [str(i) for i in range(len(raw))]
    if isinstance(raw, dict):
        for k in raw:
            if not 0 < len(k) <= MAX_NAME:
                raise Problem(422, f"'{name}': an id must be 1 to {MAX_NAME} characters, got {k[:40]!r}")
        return name, list(raw.values()), list(raw)
    raise Problem(422, f"'{name}' must be an array of items or an object id -> item")


def name_of(body: dict[str, Any], field: str, required: bool) -> str | None:
    """An annotator's name: a string of 1 to MAX_NAME characters."""
    if field not in body:
        if required:
            raise Problem(422, f"missing field {field!r}: who the items are leased to (a name)")
        return None
    v = body[field]
    if not isinstance(v, str) or not 0 < len(v) <= MAX_NAME:
        raise Problem(422, f"'{field}' must be a string of 1 to {MAX_NAME} characters, got {repr(v)[:60]}")
    return v
