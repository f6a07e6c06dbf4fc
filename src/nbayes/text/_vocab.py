"""An exact term table over the text kernels: learn terms and counts, look terms up."""

from __future__ import annotations

import numpy as np

from .._kernels import run, threads


def _pow2(n: int) -> int:
    return 1 << max(10, int(n - 1).bit_length())


class TermTable:
    """Terms with ids 0..n-1, found by their code points in an open-addressing hash table."""

    def __init__(self, terms: np.ndarray | None = None) -> None:
        from .._kernels.text import build

        terms = _objects([] if terms is None else list(terms))
        self.terms = terms
        n = len(terms)
        self.length = np.array(list(map(len, terms.tolist())), dtype=np.int64)
        self.start = np.zeros(n, dtype=np.int64)
        if n:
            self.start[1:] = np.cumsum(self.length)[:-1]
        joined = "".join(terms.tolist())
        self.cps = np.frombuffer(joined.encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32).copy()
        self.slots = np.full(2 * _pow2(2 * n + 2), -1, dtype=np.int64)
        if n:
            build(self.cps, self.start, self.length, self.slots, np.zeros(n, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.terms)

    def score(self, buf, bounds, table, weights: np.ndarray, binary: bool) -> np.ndarray:
        """Per document and class: the sum of ``weights[t]`` over its known tokens."""
        from .._kernels.text import score

        w = np.ascontiguousarray(weights, dtype=np.float64)
        return run(score, buf, bounds, table, self.slots, self.start, self.cps, w, binary, threads())

    def tokens(self, buf, bounds, table) -> np.ndarray:
        """(document, term id or -1, start, end within the document) of every token."""
        from .._kernels.text import term_ids

        return term_ids(buf, bounds, table, self.slots, self.start, self.cps)


def learn_terms(buf, bounds, table, codes, w, n_classes: int):
    """Count a batch of documents from scratch, over the vocabulary they contain.

    Returns (terms sorted, term counts K x V, document counts K x V, df V, tf V): weighted
    occurrences and weighted documents containing the term per class; unweighted documents
    containing it and unweighted occurrences over the batch.
    """
    from .._kernels.text import learn_counts, rehash

    K = n_classes
    cap = _pow2(max(1 << 12, len(buf) // 256))  # grows by doubling; (cap x K) tables stay small
    slots = np.full(4 * cap, -1, dtype=np.int64)
    keys, start, length = (np.zeros(cap, dtype=np.int64) for _ in range(3))
    last = np.full(cap, -1, dtype=np.int64)
    counts, cdf = np.zeros((cap, K)), np.zeros((cap, K))
    df, tf = np.zeros(cap), np.zeros(cap)
    cps = np.zeros(max(1024, len(buf) // 8), dtype=np.uint32)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    has_w = w is not None
    wv = w if has_w else np.empty(0)
    n_docs = len(bounds) - 1
    doc, n_terms, n_cps = 0, 0, 0
    while True:
        doc, n_terms, n_cps = learn_counts(
            buf, bounds, doc, codes, wv, has_w, table, slots, keys, start, length, cps,
            n_terms, n_cps, last, counts, cdf, df, tf,
        )
        if doc >= n_docs:
            break
        need = int(bounds[doc + 1] - bounds[doc])
        room = need // 2 + 1
        if n_cps + need > len(cps):
            cps = _grow(cps, max(2 * len(cps), n_cps + need))
        if n_terms + room > len(keys) or n_terms + room > len(slots) // 4:
            new_cap = max(2 * len(keys), _pow2(n_terms + room + 1))
            keys, start, length, df, tf = (_grow(a, new_cap) for a in (keys, start, length, df, tf))
            counts, cdf = _grow(counts, new_cap), _grow(cdf, new_cap)
            last = _grow(last, new_cap, -1)
            slots = np.full(4 * new_cap, -1, dtype=np.int64)
            rehash(slots, keys, n_terms)
    text = cps[:n_cps].tobytes().decode("utf-32-le", errors="surrogatepass")
    words = [text[s : s + n] for s, n in zip(start[:n_terms].tolist(), length[:n_terms].tolist())]
    # Python's sort on str (code point order, as scikit-learn's vocabulary): 3x numpy's on objects
    order = np.array(sorted(range(n_terms), key=words.__getitem__), dtype=np.intp)
    terms = _objects(words)
    return (
        terms[order],
        np.ascontiguousarray(counts[order].T),
        np.ascontiguousarray(cdf[order].T),
        df[order],
        tf[order],
    )


def _objects(items: list) -> np.ndarray:
    """Terms as an object array: numpy's fixed-width strings would pad every term to the
    longest one (20 Newsgroups holds uuencoded tokens thousands of characters long)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _grow(a: np.ndarray, n: int, fill: float = 0) -> np.ndarray:
    out = np.full((n,) + a.shape[1:], fill, dtype=a.dtype)
    out[: len(a)] = a
    return out
