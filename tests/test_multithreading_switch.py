"""PyTorch's ``torch.autograd.set_multithreading_enabled`` / ``is_multithreading_enabled``, as its
test_autograd.py's TestMultithreadAutograd uses them: a per-thread switch, set at once when called,
put back by a ``with`` block.  Backward runs on the calling thread here either way, so the switch
changes no result -- checked by a pass in each setting."""

from __future__ import annotations

import threading

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt.autograd import is_multithreading_enabled, set_multithreading_enabled


def test_context_manager_and_function_forms_as_pytorchs_test() -> None:
    with set_multithreading_enabled(False):
        assert not is_multithreading_enabled()
    assert is_multithreading_enabled()
    with set_multithreading_enabled(True):
        assert is_multithreading_enabled()
    assert is_multithreading_enabled()
    with set_multithreading_enabled(False):
        set_multithreading_enabled(True)  # called alone inside: switches at once
        assert is_multithreading_enabled()
    assert is_multithreading_enabled()  # the block puts back what it found
    set_multithreading_enabled(False)
    assert not is_multithreading_enabled()
    set_multithreading_enabled(True)
    assert is_multithreading_enabled()


def test_the_switch_is_per_thread_and_a_new_thread_starts_on() -> None:
    seen: list[bool] = []
    with set_multithreading_enabled(False):
        worker = threading.Thread(target=lambda: seen.append(is_multithreading_enabled()))
        worker.start()
        worker.join(10)
        assert not is_multithreading_enabled()
    assert seen == [True]


def test_a_decorated_function_has_it_off_inside_only() -> None:
    @set_multithreading_enabled(False)
    def inside() -> bool:
        return is_multithreading_enabled()

    assert is_multithreading_enabled()
    assert inside() is False
    assert is_multithreading_enabled()


def test_backward_gives_the_same_gradient_either_way() -> None:
    a = np.array([[0.5, -1.0], [2.0, 0.25]])
    grads = []
    for mode in (True, False):
        x = mg.tensor(a, requires_grad=True)
        with set_multithreading_enabled(mode):
            (x.sin() * x).sum().backward()
        grads.append(x.grad.numpy())
    expected = np.cos(a) * a + np.sin(a)
    np.testing.assert_allclose(grads[0], expected, rtol=1e-12)
    np.testing.assert_array_equal(grads[0], grads[1])


def test_the_torch_address_holds_it() -> None:
    assert mg.autograd.grad_mode.set_multithreading_enabled is set_multithreading_enabled
    assert mg.autograd.set_multithreading_enabled is set_multithreading_enabled
