"""Anomaly mode and an error raised in backward (not a NaN): PyTorch's warning "Error detected in
SinBackward0. Traceback of forward call that caused the error:" names the forward line that recorded
the failing node -- the reason to turn the mode on after "modified by an inplace operation" (whose
message says "Hint: enable anomaly detection to find the operation that failed to compute its
gradient").  Before, the engine's anomaly mode said nothing: the error named the rule, not the line.
The error itself is unchanged (its type and message), as PyTorch's.
"""

from __future__ import annotations

import sys
import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck

HEADER = "Error detected in {}. Traceback of forward call that caused the error:"


def _next_line() -> int:
    return sys._getframe(1).f_lineno + 1


class Broken(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        raise ValueError("broken rule")


@pytest.fixture(autouse=True)
def _mode_off_around_each_test():
    assert not mg.is_anomaly_enabled()
    yield
    mg.set_detect_anomaly(False)


def _named(record, name: str, line: int) -> list[str]:
    """The anomaly warnings of ``record`` that name ``name`` and this file's ``line``."""
    return [str(w.message) for w in record if str(w.message).startswith(HEADER.format(name))
            and f'File "{__file__}", line {line}, in ' in str(w.message)]


def test_a_custom_rules_error_names_its_forward_line():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.detect_anomaly():
        line = _next_line()
        y = Broken.apply(x)
        with pytest.warns(UserWarning) as record, pytest.raises(ValueError, match="^broken rule$") as info:
            (y * 3).sum().backward()
    assert len(_named(record, "BrokenBackward", line)) == 1 and record[0].filename == __file__
    assert not getattr(info.value, "__notes__", None) and x.grad is None


def test_a_value_changed_in_place_names_the_node_that_saved_it():
    x = mg.tensor([0.5, 1.0], requires_grad=True)
    with mg.detect_anomaly():
        h = x * 1
        view = h[:]
        line = _next_line()
        z = h.sin()  # saves h
        view.mul_(2)  # writes h's memory through a view
        with pytest.warns(UserWarning) as record, pytest.raises(RuntimeError, match="modified by an in-place"):
            z.sum().backward()
    assert len(_named(record, "SinBackward0", line)) == 1


def test_off_nothing_is_added():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = Broken.apply(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="^broken rule$"):
            y.sum().backward()


def test_under_a_transform_and_in_a_checkpoint_reported_once():
    with mg.detect_anomaly():
        line = _next_line()
        f = mg.func.grad(lambda t: Broken.apply(t).sum())
        with pytest.warns(UserWarning) as record, pytest.raises(ValueError, match="broken rule"):
            f(mg.tensor([1.0, 2.0]))
        assert len(_named(record, "BrokenBackward", line)) == 1
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        line = _next_line()
        y = ck.checkpoint(lambda t: Broken.apply(t.exp()), x)
        with pytest.warns(UserWarning) as record, pytest.raises(ValueError, match="broken rule"):
            y.sum().backward()
        assert len([w for w in record if str(w.message).startswith(HEADER.format("BrokenBackward"))]) == 1
        assert len(_named(record, "BrokenBackward", line)) == 1


def test_a_node_recorded_with_the_mode_off_is_named_without_a_line():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = Broken.apply(x)
    with mg.detect_anomaly():
        with pytest.warns(UserWarning, match=r"Error detected in BrokenBackward\..*\n  \(not known: recorded "
                                             r"while anomaly mode was off"):
            with pytest.raises(ValueError):
                y.sum().backward()
