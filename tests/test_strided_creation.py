"""``mg.empty_strided``, ``mg.empty_permuted`` and ``mg.frombuffer``: creation in a given memory,
with torch 2.13's strides, sharing and refusals (its words)."""

from __future__ import annotations

import array
import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import settings


def test_empty_strided_has_the_strides_asked():
    x = mg.empty_strided((2, 3), (1, 2))
    assert x.stride() == (1, 2) and x.shape == (2, 3) and not x.is_contiguous() and x.dtype == mg.float32
    assert mg.empty_strided((2, 3), (0, 1)).stride() == (0, 1)                                 # torch's
    assert mg.empty_strided((2, 3), (3, 1), dtype=mg.float64).is_contiguous()
    x += 1
    x[0, 1] = 5.0
    assert x.tolist() == [[1.0, 5.0, 1.0], [1.0, 1.0, 1.0]]
    w = mg.empty_strided((3, 2), (1, 3), requires_grad=True)
    (w * 2).sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0]] * 3


def test_empty_strided_refusals():
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\) must match dimensionality of strides \(1\)"):
        mg.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[2, 3\]"):
        mg.empty_strided((2, 3), (-1, 1))


def test_empty_permuted_lays_the_dims_out_in_the_order_given():
    p = mg.empty_permuted((2, 3, 4), (0, 2, 1))
    assert p.shape == (2, 3, 4) and p.stride() == (12, 1, 3)                                   # torch 2.13
    with pytest.raises(RuntimeError, match=r"len\(size\) = 2 is not equal to len\(physical_layout\) = 1"):
        mg.empty_permuted((2, 3), (0,))
    with pytest.raises(RuntimeError, match="Duplicate dim not allowed"):
        mg.empty_permuted((2, 3), (0, 0))


def test_frombuffer_shares_the_buffers_memory():
    a = array.array("i", [1, 2, 3])
    t = mg.frombuffer(a, dtype=mg.int32)
    t[0] = 9
    assert a.tolist() == [9, 2, 3]
    assert mg.frombuffer(bytearray(b"abcd"), dtype=mg.int16, count=1, offset=2).tolist() == [25699]   # torch's
    settings._warned_once.discard("frombuffer of a read-only buffer")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert mg.frombuffer(b"abcd", dtype=mg.int8).tolist() == [97, 98, 99, 100]
        mg.frombuffer(b"abcd", dtype=mg.int8)  # once a process, as torch 2.13's ("suppressed for the rest")
    assert len(seen) == 1
    assert "The given buffer is not writable" in str(seen[0].message) and seen[0].filename == __file__
    assert mg.frombuffer(bytearray(8), dtype=mg.float32, requires_grad=True).requires_grad


@pytest.mark.parametrize("call, message", [
    (lambda: mg.frombuffer(bytearray(b"abc"), dtype=mg.int16),
     r"buffer length \(3 bytes\) after offset \(0 bytes\) must be a multiple of element size \(2\)"),
    (lambda: mg.frombuffer(bytearray(b"abcd"), dtype=mg.int16, offset=5),
     r"offset \(5 bytes\) must be non-negative and no greater than buffer length \(4 bytes\) minus 1"),
    (lambda: mg.frombuffer(bytearray(b""), dtype=mg.int16), r"both buffer length \(0\) and count \(-1\) must not be 0"),
    (lambda: mg.frombuffer(bytearray(b"abcd"), dtype=mg.int16, count=3),
     r"requested buffer length \(3 \* 2 bytes\) after offset \(0 bytes\) must not be greater than actual"),
    (lambda: mg.frombuffer([1, 2], dtype=mg.int8), "object does not implement Python buffer protocol."),
])
def test_frombuffer_refusals_are_pytorchs(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_on_the_strict_stand_in_for_a_gpu():
    from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

    x = mg.empty_strided((2, 3), (1, 2), device="strict")
    assert x.stride() == (1, 2) and str(x.device) == "strict:0"
    x += 1
    assert x.tolist() == [[1.0] * 3] * 2
    assert mg.empty_permuted((2, 3, 4), (0, 2, 1), device="strict").stride() == (12, 1, 3)
