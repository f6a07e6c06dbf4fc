"""Multi-label rows on the command line: label sets from a column (a JSON list in JSON Lines or
Parquet, or a field split by ``--labels-sep``), and the measures of predicted label sets."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DataError
from ..multilabel import read_labels
from ._output import console, plain, scores_table


def label_sets(y: Any, sep: str | None, source: Any) -> list[list[Any]]:
    """Each row's labels: a list column as it is; a string split on ``sep`` (stripped, empty
    parts dropped) or, without ``sep``, one label."""
    out: list[list[Any]] = []
    for i, v in enumerate(y):
        if hasattr(v, "to_list"):
            v = v.to_list()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        if isinstance(v, list | tuple):
            labels = [plain(x) for x in v if x is not None and not (isinstance(x, str) and not x.strip())]
            labels = [x.strip() if isinstance(x, str) else x for x in labels]
        elif isinstance(v, str):
            labels = [p.strip() for p in v.split(sep)] if sep else [v.strip()]
            labels = [p for p in labels if p]
        else:
            labels = [plain(v)]
        out.append(labels)
    return out


def joined(labels: list[list[Any]], sep: str) -> list[str]:
    """Label lists as one field each (CSV / TSV output)."""
    for row in labels:
        for lab in row:
            if sep in str(lab):
                raise DataError(f"label {lab!r} holds the separator {sep!r}; write .jsonl or .parquet instead")
    return [sep.join(str(x) for x in row) for row in labels]


def measures(model: Any, sets: list[list[Any]], pred: np.ndarray, P: np.ndarray) -> dict[str, Any]:
    """Micro- and macro-F1, precision@1, subset accuracy and per-label measures."""
    Y, _ = read_labels(sets, len(sets), model.classes_, allow_empty=True, grow=False)
    T = Y.toarray().astype(bool)
    D = pred.astype(bool)
    tp = (T & D).sum(axis=0).astype(float)
    fp = (~T & D).sum(axis=0).astype(float)
    fn = (T & ~D).sum(axis=0).astype(float)
    denom = 2 * tp + fp + fn
    f1 = np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)
    micro = float(2 * tp.sum() / max(2 * tp.sum() + fp.sum() + fn.sum(), 1))
    top = np.argmax(P, axis=1) if P.shape[1] else np.zeros(len(P), dtype=int)
    p_at_1 = float(np.mean(T[np.arange(len(T)), top])) if len(T) and T.shape[1] else 0.0
    per = {}
    for j, lab in enumerate(model.classes_.tolist()):
        prec = tp[j] / (tp[j] + fp[j]) if tp[j] + fp[j] else 0.0
        rec = tp[j] / (tp[j] + fn[j]) if tp[j] + fn[j] else 0.0
        per[str(lab)] = {"precision": float(prec), "recall": float(rec), "f1": float(f1[j]),
                         "support": int(T[:, j].sum())}
    return {"rows": len(sets), "micro_f1": micro, "macro_f1": float(f1.mean()) if len(f1) else 0.0,
            "precision_at_1": p_at_1, "subset_accuracy": float(np.mean((T == D).all(axis=1))) if len(T) else 0.0,
            "labels_per_row": float(D.sum() / max(len(D), 1)), "per_label": per}


def print_measures(r: dict[str, Any]) -> None:
    con = console()
    con.print(f"[bold]{r['rows']:,} rows, multi-label[/]")
    con.print(f"micro-F1 {r['micro_f1']:.4f}   macro-F1 {r['macro_f1']:.4f}   precision@1 {r['precision_at_1']:.4f}"
              f"   subset accuracy {100 * r['subset_accuracy']:.2f}%")
    con.print(scores_table("label", r["per_label"]))


def print_folds(r: dict[str, Any]) -> None:
    """The measures of ``evaluate --cv K --multilabel``: per fold, then the mean."""
    from rich.table import Table

    con = console()
    con.print(f"[bold]{r['rows']:,} rows, multi-label ({len(r['labels'])} labels), {r['cv']}-fold cross-validation[/]")
    t = Table(show_edge=False)
    for c in ("fold", "rows", "micro-F1", "macro-F1", "precision@1"):
        t.add_column(c, justify="right")
    for f in r["folds"]:
        t.add_row(str(f["fold"] + 1), f"{f['rows']:,}", f"{f['micro_f1']:.4f}", f"{f['macro_f1']:.4f}",
                  f"{f['precision_at_1']:.4f}")
    m = r["mean"]
    t.add_row("mean", "", f"{m['micro_f1']:.4f}", f"{m['macro_f1']:.4f}", f"{m['precision_at_1']:.4f}")
    con.print(t)
