"""One exact comparison of environment outputs: observations, infos, rewards, masks."""

from __future__ import annotations

import numpy as np


def assert_same(a, b, where: str) -> None:
    """Equal values of equal types (and dtypes and shapes), through dicts, tuples and object arrays."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), where
        for number, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{number}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and len(a) == len(b), where
        for x, y in zip(a, b, strict=True):
            assert (x is None) == (y is None), where
            if x is not None:
                assert_same(x, y, where)
    else:
        assert type(a) is type(b), (where, type(a), type(b))
        a, b = np.asarray(a), np.asarray(b)
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        assert np.array_equal(a, b), where
