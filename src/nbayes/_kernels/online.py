"""Adding a small update to large per-class text counts and (class, term) pairs without a
dense table, a sort or a re-estimation (``nbayes serve --learn``; :mod:`nbayes.text.online`).

The vocabulary is sorted, so an update's new terms are inserted among the old ones: ``ins``
(ascending, repeats allowed) holds, for each new term, the old term id it goes before
(``np.insert``'s convention). An old id ``j`` becomes ``new_id[j] = j + #(ins <= j)``
(:func:`renumbered`; an empty ``new_id`` when nothing is inserted). Each kernel writes new
arrays (the served version is never written): the old arrays copied in runs between the
update's entries (each found by a binary search), never a sort, a hash rebuild or a dense
table. An update entry names where it goes in the old order by ``key``: the old id of a term
the model holds (``known``), else its insertion point ``ins``.
The NumPy twins are in tests/text/test_online.py.
"""

from __future__ import annotations

from ._online import extend_slots, heavy_rows, inserted, merge_pairs, merge_rows, renumbered, update_entries

__all__ = ["extend_slots", "heavy_rows", "inserted", "merge_pairs", "merge_rows", "renumbered", "update_entries"]
