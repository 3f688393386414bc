"""``mg.autograd.graph.register_multi_grad_hook(tensors, fn, mode=)``, PyTorch's hook on several tensors'
gradients at once (an AttributeError before): ``"all"`` calls ``fn(grads)`` once per backward pass, when
every tensor the pass reaches has its gradient (``None`` for the others); ``"any"`` calls ``fn(grad)``
with the first.

Expected results: torch 2.13 on the same programs -- its docstring's example among them:
``c = a * b; d = a * b``, hooks on ``(a, b, c, d)``: ``c.sum().backward()`` -> ``[True, True, True, False]``,
``c.sum().backward(inputs=(a,))`` -> ``[True, False, True, False]``.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.graph import register_multi_grad_hook
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_the_docstring_example(device, dtype):
    a = mg.tensor([[1.0, 2.0]], dtype=dtype, device=device, requires_grad=True)
    b = mg.tensor([[3.0, 4.0]], dtype=dtype, device=device, requires_grad=True)
    c = a * b
    d = a * b
    seen = []
    register_multi_grad_hook((a, b, c, d), lambda grads: seen.append([g is not None for g in grads]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c.sum() + d.sum()).backward()
    assert seen == [[True, True, True, False], [True, False, True, False], [True, True, True, True]]


def test_all_is_called_once_per_pass_with_the_gradients_after_the_tensor_hooks():
    a = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    b = a * 3
    c = b.exp()
    calls = []
    b.register_hook(lambda g: calls.append("b hook"))
    register_multi_grad_hook((b, c), lambda grads: calls.append([g.tolist() for g in grads]))
    c.register_hook(lambda g: calls.append("c hook"))
    c.sum().backward(retain_graph=True)
    c.sum().backward()
    want = ["c hook", "b hook", [np.exp([3.0, 6.0]).tolist(), [1.0, 1.0]]]
    assert calls == want + want


def test_any_is_called_once_per_pass_with_the_first_gradient():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    z = mg.tensor([1.0, 2.0])  # does not require grad: "any" passes it over ("all" refuses it)
    seen = []
    handle = register_multi_grad_hook((a, b, z), lambda g: seen.append(g.tolist()), mode="any")
    (a * 2 + b * 3).sum().backward()
    (b * 5).sum().backward()
    handle.remove()
    (b * 5).sum().backward()
    assert seen == [[3.0, 3.0], [5.0, 5.0]]
    with pytest.raises(RuntimeError):
        register_multi_grad_hook((a, z), lambda grads: None)
    with pytest.raises(ValueError, match="Expects mode to be one of"):
        register_multi_grad_hook((a,), lambda grads: None, mode="some")


def test_with_mg_grad_create_graph_and_a_handle_as_context_manager():
    a = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([3.0, 4.0], dtype=mg.float64, requires_grad=True)
    seen = []
    with register_multi_grad_hook((a, b), lambda grads: seen.append([g.requires_grad for g in grads])):
        ga, gb = mg.autograd.grad((a * a * b).sum(), (a, b), create_graph=True)
    (a * b).sum().backward()
    assert seen == [[True, True]]
    assert ga.tolist() == [6.0, 16.0] and gb.tolist() == [1.0, 4.0]


def test_inside_a_checkpoint_and_per_row_of_jacrev():
    a = mg.tensor([0.5, 1.0], dtype=mg.float64, requires_grad=True)
    out = mg.checkpoint.checkpoint(lambda x: x.sin() * 2, a)
    seen = []
    register_multi_grad_hook((a, out), lambda grads: seen.append([g.tolist() for g in grads]))
    out.sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0][0], 2 * np.cos([0.5, 1.0]))

    rows = []

    def f(x):
        y = x * 3
        register_multi_grad_hook((y,), lambda grads: rows.append(grads[0].tolist()))
        return y.exp()

    mg.func.jacrev(f)(mg.tensor([0.0, 0.0], dtype=mg.float64))
    assert rows == [[1.0, 0.0], [0.0, 1.0]]  # one backward pass per row (docs/from-pytorch.md): d exp(y)/dy at 0


def test_a_pass_in_another_thread_does_not_hide_this_threads_pass():
    # torch 2.13 (the graph task is the thread's own): thread a's hook gets [[3, 6], [2, 4]] while
    # thread b is inside a backward of its own
    import threading

    results, a_in, b_in, a_done = {}, threading.Event(), threading.Event(), threading.Event()

    def run_a():
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        p, q = x * 2, x * 3
        mg.autograd.graph.register_multi_grad_hook((p, q), lambda gs: results.setdefault("a", [g.tolist() for g in gs]))
        r = p * q
        r.register_hook(lambda g: (a_in.set(), b_in.wait(10)) and None)  # b's pass is running now
        r.sum().backward()
        a_done.set()

    def run_b():
        a_in.wait(10)
        s = mg.tensor([1.0, 2.0], requires_grad=True).exp()
        s.register_hook(lambda g: (b_in.set(), a_done.wait(10)) and None)  # held inside b's pass until a is done
        s.sum().backward()

    threads = [threading.Thread(target=run_b), threading.Thread(target=run_a)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"a": [[3.0, 6.0], [2.0, 4.0]]}
