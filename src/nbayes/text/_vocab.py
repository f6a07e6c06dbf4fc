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
        self.length = np.fromiter((len(t) for t in terms.tolist()), dtype=np.int64, count=n)
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


def tokenize_learn(buf, bounds, table):
    """Every token's term id in a vocabulary learned from these documents.

    Returns (terms in id order, ids per token, first-in-document flag per token, tokens per
    document).
    """
    from .._kernels.text import learn, rehash

    cap = 1 << 12
    slots = np.full(4 * cap, -1, dtype=np.int64)
    keys = np.zeros(cap, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    length = np.zeros(cap, dtype=np.int64)
    last = np.full(cap, -1, dtype=np.int64)
    cps = np.zeros(max(1024, len(buf) // 8), dtype=np.uint32)
    ids = np.empty(max(1024, len(buf) // 5), dtype=np.int32)
    first = np.empty(len(ids), dtype=np.bool_)
    n_docs = len(bounds) - 1
    doc_tok = np.zeros(n_docs + 1, dtype=np.int64)
    doc, n_tok, n_terms, n_cps = 0, 0, 0, 0
    while True:
        doc, n_tok, n_terms, n_cps = learn(
            buf, bounds, doc, n_tok, table, slots, keys, start, length, cps, n_terms, n_cps,
            last, ids, first, doc_tok,
        )
        if doc >= n_docs:
            break
        need = int(bounds[doc + 1] - bounds[doc])
        room = need // 2 + 1
        if n_cps + need > len(cps):
            cps = _grow(cps, max(2 * len(cps), n_cps + need))
        if n_tok + room > len(ids):
            ids = _grow(ids, max(2 * len(ids), n_tok + room))
            first = _grow(first, len(ids))
        if n_terms + room > len(keys) or n_terms + room > len(slots) // 4:
            new_cap = max(2 * len(keys), _pow2(n_terms + room + 1))
            keys, start, length = (_grow(a, new_cap) for a in (keys, start, length))
            last = _grow(last, new_cap, -1)
            slots = np.full(4 * new_cap, -1, dtype=np.int64)
            rehash(slots, keys, n_terms)
    text = cps[:n_cps].tobytes().decode("utf-32-le", errors="surrogatepass")
    terms = [text[s : s + n] for s, n in zip(start[:n_terms].tolist(), length[:n_terms].tolist())]
    return _objects(terms), ids[:n_tok], first[:n_tok], doc_tok


def learn_terms(buf, bounds, table, codes, w, n_classes: int):
    """Count a batch of documents from scratch, over the vocabulary they contain.

    Returns (terms sorted, term counts K x V, document counts K x V, df V, tf V): weighted
    occurrences and weighted documents containing the term per class; unweighted documents
    containing it and unweighted occurrences over the batch.
    """
    terms, ids, first, doc_tok = tokenize_learn(buf, bounds, table)
    K, V = n_classes, len(terms)
    tok_doc = np.repeat(np.arange(len(doc_tok) - 1), np.diff(doc_tok))
    tok_class = np.asarray(codes)[tok_doc]
    tok_w = None if w is None else w[tok_doc]
    flat = ids.astype(np.int64) * K + tok_class
    counts = np.bincount(flat, weights=tok_w, minlength=V * K).reshape(V, K)
    cdf = np.bincount(flat[first], weights=None if tok_w is None else tok_w[first], minlength=V * K)
    df = np.bincount(ids[first], minlength=V).astype(np.float64)
    tf = np.bincount(ids, minlength=V).astype(np.float64)
    order = np.array(sorted(range(V), key=terms.__getitem__), dtype=np.intp)
    return (
        terms[order],
        np.ascontiguousarray(counts[order].T, dtype=np.float64),
        np.ascontiguousarray(cdf.reshape(V, K)[order].T, dtype=np.float64),
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
