"""The model file: round trips, integrity, atomic writes, never pickle."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import struct

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_array_equal

import nbayes
from nbayes.errors import DataError, ModelFileError
from nbayes.io.model_file import FORMAT_VERSION, MAGIC, load_state, read_header, save_state

NUMERIC = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]


def state(arrays, params=None, meta=None):
    return {"kind": "Test", "params": params or {}, "meta": meta or {}, "arrays": arrays}


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 4), (3, 2, 2)])
def test_numeric_round_trip(tmp_path, rng, dtype, shape):
    arr = (rng.random(shape) * 100).astype(dtype)
    save_state(tmp_path / "m", state({"a": arr}))
    back = load_state(tmp_path / "m")["arrays"]["a"]
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert_array_equal(back, arr)
    assert back.flags.writeable


def test_labels_keep_their_python_types(tmp_path):
    mixed = np.empty(6, dtype=object)
    mixed[:] = [1, "a", True, 2.5, None, float("nan")]
    arrays = {
        "str": np.array(["x", "yz"]),
        "int_obj": np.array([1, 2], dtype=object),
        "bool_obj": np.array([True, False], dtype=object),
        "mixed": mixed,
        "np_scalars": np.array([np.int64(3), np.float64(1.5), np.str_("s")], dtype=object),
    }
    save_state(tmp_path / "m", state(arrays))
    back = load_state(tmp_path / "m")["arrays"]
    assert back["str"].dtype.kind == "U" and back["str"].tolist() == ["x", "yz"]
    assert [type(v) for v in back["int_obj"]] == [int, int]
    assert [type(v) for v in back["bool_obj"]] == [bool, bool]
    m = back["mixed"].tolist()
    assert [type(v) for v in m] == [int, str, bool, float, type(None), float]
    assert m[:4] == [1, "a", True, 2.5] and m[4] is None and np.isnan(m[5])
    assert [type(v) for v in back["np_scalars"]] == [int, float, str]


def test_params_with_nan_inf_and_arrays(tmp_path):
    params = {"a": float("nan"), "b": float("inf"), "c": np.array([0.5, 1.5]), "d": None, "e": {"x": 1}}
    save_state(tmp_path / "m", state({}, params=params))
    back = load_state(tmp_path / "m")["params"]
    assert np.isnan(back["a"]) and back["b"] == float("inf") and back["d"] is None
    assert back["c"].dtype == np.float64 and back["c"].tolist() == [0.5, 1.5]
    assert back["e"] == {"x": 1}


def test_unstorable_values_are_refused_before_writing(tmp_path):
    path = tmp_path / "m"
    with pytest.raises(DataError, match="bytes"):
        save_state(path, state({"x": np.array([b"raw", "s"], dtype=object)}))
    assert not path.exists() and not os.listdir(tmp_path)


@pytest.fixture
def small_file(tmp_path):
    path = tmp_path / "m"
    save_state(path, state({"a": np.arange(3.0), "l": np.array(["u", "v"])}, params={"alpha": 1.0}))
    return path


def test_every_truncation_is_detected(small_file, tmp_path):
    raw = small_file.read_bytes()
    cut = tmp_path / "cut"
    for n in range(len(raw)):
        cut.write_bytes(raw[:n])
        with pytest.raises(ModelFileError):
            load_state(cut)


def test_every_flipped_byte_is_detected(small_file, tmp_path):
    raw = bytearray(small_file.read_bytes())
    bad = tmp_path / "bad"
    for i in range(len(raw)):
        flipped = bytearray(raw)
        flipped[i] ^= 0x40
        bad.write_bytes(bytes(flipped))
        with pytest.raises(ModelFileError):
            load_state(bad)


def forge(path, header, payload=b"", version=FORMAT_VERSION):
    head = json.dumps(header).encode()
    body = struct.pack("<8sIQ", MAGIC, version, len(head)) + head + payload
    path.write_bytes(body + hashlib.sha256(body).digest())


def test_future_version_asks_for_an_upgrade(tmp_path):
    forge(tmp_path / "f", {"arrays": {}}, version=999)
    with pytest.raises(ModelFileError, match="newer nbayes.*upgrade"):
        load_state(tmp_path / "f")


@pytest.mark.parametrize("dtype", ["object", "O", "|O", "<U3", "V8"])
def test_object_dtype_in_a_forged_header_is_refused(tmp_path, dtype):
    header = {"kind": "GaussianNB", "params": {}, "meta": {}, "arrays": {"a": {"dtype": dtype, "shape": [1], "offset": 0, "nbytes": 8}}}
    forge(tmp_path / "f", header, b"\0" * 8)
    with pytest.raises(ModelFileError, match="not allowed"):
        load_state(tmp_path / "f")


def test_out_of_bounds_array_is_refused(tmp_path):
    header = {"kind": "X", "params": {}, "meta": {}, "arrays": {"a": {"dtype": "<f8", "shape": [4], "offset": 0, "nbytes": 32}}}
    forge(tmp_path / "f", header, b"\0" * 8)
    with pytest.raises(ModelFileError, match="outside the file"):
        load_state(tmp_path / "f")


def test_bad_magic_and_pickles(tmp_path):
    (tmp_path / "t").write_text("hello, world")
    with pytest.raises(ModelFileError, match="not an nbayes model file"):
        load_state(tmp_path / "t")
    (tmp_path / "p").write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(ModelFileError, match="pickle"):
        nbayes.load(tmp_path / "p")
    with pytest.raises(ModelFileError, match="no such model file"):
        load_state(tmp_path / "missing")


def test_atomic_write_keeps_the_old_file(small_file, monkeypatch):
    before = small_file.read_bytes()

    def boom(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(ModelFileError, match="cannot save \\(disk on fire\\); nothing was written"):
        save_state(small_file, state({"a": np.zeros(100)}))
    assert small_file.read_bytes() == before
    assert sorted(os.listdir(small_file.parent)) == [small_file.name]


def test_missing_folder(tmp_path):
    with pytest.raises(ModelFileError, match="does not exist"):
        save_state(tmp_path / "no" / "m", state({}))


def test_read_header(small_file):
    h = read_header(small_file)
    assert h["kind"] == "Test" and h["format_version"] == 2 and "a" in h["arrays"]  # 3 only with binned columns


def test_unknown_kind_and_bad_state(tmp_path):
    save_state(tmp_path / "m", state({}))
    with pytest.raises(ModelFileError, match="unknown model kind 'Test'"):
        nbayes.load(tmp_path / "m")
    save_state(tmp_path / "g", {"kind": "GaussianNB", "params": {}, "meta": {}, "arrays": {}})
    with pytest.raises(ModelFileError, match="not describe a valid GaussianNB"):
        nbayes.load(tmp_path / "g")


arrays_strategy = st.dictionaries(
    st.text(min_size=1, max_size=8),
    hnp.arrays(
        st.sampled_from([np.dtype(d) for d in NUMERIC]),
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    ),
    max_size=4,
)


@given(arrays=arrays_strategy)
def test_round_trip_property(tmp_path_factory, arrays):
    path = tmp_path_factory.mktemp("h") / "m"
    save_state(path, state(arrays))
    back = load_state(path)["arrays"]
    assert back.keys() == arrays.keys()
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype and back[k].shape == a.shape
        assert_array_equal(back[k], a)
