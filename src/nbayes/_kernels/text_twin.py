"""Plain-Python twins of the text kernels (``text.py``, ``murmur.py``), for the tests: slow,
small and written from the definitions (scikit-learn's token pattern, stop words dropped before
the word n-grams are formed, MurmurHash3 of the UTF-8 bytes), on already lower-cased strings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

TOKEN = re.compile(r"(?u)\b\w\w+\b")


def grams(doc: str, ngram_range: tuple[int, int], stop: Iterable[str] = ()) -> list[tuple[str, int, int]]:
    """(term, start, end) of every word n-gram of ``doc``, in the kernels' order: by last word,
    shorter n-grams first. A term is its words joined by one space."""
    stop = set(stop)
    words = [(m.group(), m.start(), m.end()) for m in TOKEN.finditer(doc) if m.group() not in stop]
    lo, hi = ngram_range
    out = []
    for t in range(len(words)):
        for n in range(lo, min(hi, t + 1) + 1):
            part = words[t - n + 1 : t + 1]
            out.append((" ".join(w for w, _, _ in part), part[0][1], part[-1][2]))
    return out


def murmur3(text: str) -> int:
    """MurmurHash3 x86 32-bit, seed 0, of the UTF-8 bytes of ``text``, as a signed integer."""
    data = text.encode("utf-8", errors="surrogatepass")
    c1, c2, mask = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & mask

    h = 0
    n_blocks = len(data) // 4
    for b in range(n_blocks):
        k = int.from_bytes(data[4 * b : 4 * b + 4], "little")
        k = rotl((k * c1) & mask, 15) * c2 & mask
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & mask
    tail = data[4 * n_blocks :]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= rotl((k * c1) & mask, 15) * c2 & mask
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h - (1 << 32) if h >= 1 << 31 else h


def bucket(term: str, n_features: int) -> int:
    """scikit-learn's column of a term: abs(murmur3) mod n_features (abs(-2**31) as numpy's)."""
    h = murmur3(term)
    return (2**31 - 1 - (n_features - 1)) % n_features if h == -(2**31) else abs(h) % n_features


def term_of(term: str, vocabulary: Mapping[str, int] | None, n_features: int) -> int:
    """A term's column: its bucket (hashing mode, n_features > 0) or id (-1: unknown)."""
    if n_features > 0:
        return bucket(term, n_features)
    assert vocabulary is not None
    return vocabulary.get(term, -1)


def term_ids(docs: list[str], ngram_range: tuple[int, int], stop: Iterable[str],
             vocabulary: Mapping[str, int] | None, n_features: int) -> np.ndarray:
    """Twin of ``text.term_ids``: rows (document, term, start, end)."""
    rows = [(d, term_of(g, vocabulary, n_features), s, e)
            for d, doc in enumerate(docs) for g, s, e in grams(doc, ngram_range, stop)]
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def count_terms(docs: list[str], codes: list[int], w: list[float] | None, n_classes: int,
                ngram_range: tuple[int, int], stop: Iterable[str], n_features: int
                ) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Twin of ``text.count_terms`` (with the learner's sorting): (terms, counts V x K, document
    counts V x K, df, tf) over the sorted vocabulary of ``docs``, or the buckets."""
    found = [[g for g, _, _ in grams(doc, ngram_range, stop)] for doc in docs]
    terms: list[Any] = list(range(n_features)) if n_features > 0 else sorted({g for f in found for g in f})
    col = {t: i for i, t in enumerate(terms)} if n_features == 0 else None
    V = len(terms)
    counts, cdf, df, tf = np.zeros((V, n_classes)), np.zeros((V, n_classes)), np.zeros(V), np.zeros(V)
    for d, f in enumerate(found):
        wd = 1.0 if w is None else w[d]
        ids = [term_of(g, col, n_features) for g in f]
        for t in ids:
            counts[t, codes[d]] += wd
            tf[t] += 1
        for t in set(ids):
            cdf[t, codes[d]] += wd
            df[t] += 1
    return terms, counts, cdf, df, tf


def score(docs: list[str], ngram_range: tuple[int, int], stop: Iterable[str],
          vocabulary: Mapping[str, int] | None, n_features: int, weights: np.ndarray, binary: bool) -> np.ndarray:
    """Twin of ``text_pairs.score``: per document, the sum of weights[t] over its known terms (each
    distinct term once when ``binary``)."""
    out = np.zeros((len(docs), weights.shape[1]))
    for d, doc in enumerate(docs):
        ids = [term_of(g, vocabulary, n_features) for g, _, _ in grams(doc, ngram_range, stop)]
        for t in (sorted(set(ids)) if binary else ids):
            if t >= 0:
                out[d] += weights[t]
    return out
