"""The boundary: every check on hyperparameters and data happens here, once.

Inner code (statistics, estimation, kernels) trusts what comes out of these functions. One
concept a module: ``params`` (hyperparameters), ``arrays`` (feature matrices, weights, rows),
``labels`` (labels and categorical values), ``common`` (what is missing, how a value is shown), ``kinds`` (a table or documents, refused
when X is another kind of input).
"""

from .arrays import (
    check_flat,
    check_sample_weight,
    check_shape,
    check_X_numeric,
    feature_count_message,
    frame_names,
    n_rows,
    take_rows,
)
from .common import first_bad, is_missing, name_columns, show
from .kinds import check_document, check_documents, check_rows, check_table, describe, reusable
from .labels import (
    check_y,
    classes_and_codes,
    encode_labels,
    encode_values,
    label_array,
    missing_mask,
    sorted_unique,
    union_labels,
)
from .params import check_choice, check_number, check_probability_vector, check_vector_param

__all__ = [
    "check_choice",
    "check_document",
    "check_documents",
    "check_flat",
    "check_number",
    "check_probability_vector",
    "check_rows",
    "check_sample_weight",
    "check_shape",
    "check_table",
    "check_vector_param",
    "check_X_numeric",
    "check_y",
    "classes_and_codes",
    "describe",
    "encode_labels",
    "encode_values",
    "feature_count_message",
    "first_bad",
    "frame_names",
    "is_missing",
    "name_columns",
    "label_array",
    "missing_mask",
    "n_rows",
    "reusable",
    "show",
    "sorted_unique",
    "take_rows",
    "union_labels",
]
