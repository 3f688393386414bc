"""Inside ``inference_mode`` nothing is recorded, even where ``enable_grad`` (or
``set_grad_enabled(True)``) turns grad mode on, as PyTorch's: torch 2.13 gives ``is_grad_enabled()``
True there but ``(x * 2).requires_grad`` False.  The engine's ``enable_grad`` turned recording back
on inside ``inference_mode``, so the result required grad and was on the tape.
``inference_mode(False)`` inside records, as PyTorch's.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

SWITCHES = {"enable_grad": mg.enable_grad, "set_grad_enabled(True)": lambda: mg.set_grad_enabled(True)}


def _x():
    return mg.tensor([1.0, 2.0], requires_grad=True)


@pytest.mark.parametrize("switch", list(SWITCHES.values()), ids=list(SWITCHES))
def test_grad_mode_on_inside_inference_mode_records_nothing(switch):
    x = _x()
    with mg.inference_mode():
        with switch():
            assert mg.is_grad_enabled()  # torch 2.13: True
            y = x * 2
        assert not mg.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None  # torch 2.13: False, None
    assert mg.is_grad_enabled() and (x * 2).requires_grad  # outside: as before


def test_a_decorated_function_and_a_generator_inside_inference_mode():
    x = _x()

    @mg.enable_grad()
    def double(a):
        return a * 2

    @mg.enable_grad()
    def doubles(a):
        yield a * 2

    with mg.inference_mode():
        assert not double(x).requires_grad
        assert not next(doubles(x)).requires_grad
        assert not mg.is_grad_enabled()


def test_inference_mode_false_inside_records():
    x = _x()
    with mg.inference_mode():
        with mg.inference_mode(False):
            assert mg.is_grad_enabled()
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad  # torch 2.13: True, False
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
