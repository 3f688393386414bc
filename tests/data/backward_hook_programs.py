"""Programs with full backward hooks (and pre-hooks) on modules, written once for torch and minigrad_ckpt.

Each program is ``program(lib, dtype, device, call)``: ``lib`` is ``torch`` or ``minigrad_ckpt``, ``dtype``
a dtype's name, ``device`` where the tensors live, and ``call(module, *args)`` how the module is called (the
tests also call it inside ``mg.checkpoint.checkpoint``).  It returns a log of what the hooks saw and the
gradients that came out, as JSON data.  ``make_torch_backward_hooks.py`` records torch's logs;
``tests/test_module_full_backward_hooks.py`` replays the programs on the engine.
"""

from __future__ import annotations

from typing import Any


def _plain(m: Any, *args: Any) -> Any:
    return m(*args)


def seen(g: Any) -> Any:
    """A gradient as JSON: None, or ``[dtype name, values]``."""
    if g is None:
        return None
    values = g.detach().cpu().numpy()
    if values.dtype.kind == "c":  # (re, im) pairs: JSON has no complex numbers
        values = values.view(values.real.dtype).reshape(*values.shape, 2)
    return [str(g.dtype).rsplit(".", 1)[-1], values.tolist()]


def _tensors(lib: Any, dtype: str, device: str) -> Any:
    def t(values: Any, requires_grad: bool = False, kind: str | None = None) -> Any:
        return lib.tensor(values, dtype=getattr(lib, kind or dtype), device=device, requires_grad=requires_grad)
    return t


def _logging_hooks(lib: Any, m: Any, log: list, pre: bool = True) -> None:
    if pre:
        m.register_full_backward_pre_hook(lambda mod, go: log.append(["pre", [seen(g) for g in go]]))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(["full", [seen(g) for g in gi],
                                                                  [seen(g) for g in go]]))


def _module(lib: Any, forward: Any) -> Any:
    class M(lib.nn.Module):
        def forward(self, *args: Any) -> Any:
            return forward(*args)
    return M()


def input_without_grad_gets_zeros(lib, dtype, device, call=_plain):
    # a tensor input that does not require grad (float, integer, bool): zeros of its dtype in grad_input
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, n, i, b, flag: (a * b * n + i, b * 2, flag))
    _logging_hooks(lib, m, log)
    a = t([1.0, 2.0], True)
    out = call(m, a, 3, t([1, 2], kind="int64"), t([3.0, -4.0]), t([True, False], kind="bool"))
    out[0].sum().backward()
    return [log, seen(a.grad)]


def input_no_gradient_reaches(lib, dtype, device, call=_plain):
    # b requires grad but the output does not depend on it: the hook still fires, b's entry zeros
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, b: a * 2)
    _logging_hooks(lib, m, log)
    a, b = t([1.0, 2.0], True), t([3.0, 4.0], True)
    call(m, a, b).sum().backward()
    return [log, seen(a.grad), seen(b.grad)]


def input_behind_an_unused_output(lib, dtype, device, call=_plain):
    # b reaches only the second output, which the loss does not use
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, b: (a * 2, b * 3))
    _logging_hooks(lib, m, log)
    a, b = t([1.0, 2.0], True), t([3.0, 4.0], True)
    call(m, a, b)[0].sum().backward()
    return [log, seen(a.grad), seen(b.grad)]


def hook_replaces_several_grad_inputs(lib, dtype, device, call=_plain):
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, b, c: a * b + c)
    m.register_full_backward_hook(lambda mod, gi, go: (None, gi[1] * 2, gi[2] * 3))
    a, b, c = t([1.0, 2.0], True), t([3.0, 4.0], True), t([5.0, 6.0], True)
    call(m, a, b, c).sum().backward()
    return [log, seen(a.grad), seen(b.grad), seen(c.grad)]


def pre_hook_on_several_outputs(lib, dtype, device, call=_plain):
    # the first output is unused (None in grad_output); the pre-hook replaces the second
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a: (a * 2, a * 3, a * 4))
    m.register_full_backward_pre_hook(lambda mod, go: (log.append(["pre", [seen(g) for g in go]]),
                                                       (go[0], go[1] * 10, None))[1])
    _logging_hooks(lib, m, log, pre=False)
    a = t([1.0, 2.0], True)
    _, y, z = call(m, a)
    (y.sum() + z.sum()).backward()
    return [log, seen(a.grad)]


def same_tensor_three_times(lib, dtype, device, call=_plain):
    # self-attention's mha(x, x, x): each position has its own entry
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda q, k, v: q * k * 2 + v)
    _logging_hooks(lib, m, log)
    a = t([1.0, 2.0], True)
    call(m, a, a, a).sum().backward()
    return [log, seen(a.grad)]


def two_backward_passes(lib, dtype, device, call=_plain):
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, b: a * b)
    _logging_hooks(lib, m, log)
    a, b = t([1.0, 2.0], True), t([3.0, 4.0], True)
    y = call(m, a, b).sum()
    y.backward(retain_graph=True)
    y.backward()
    return [log, seen(a.grad), seen(b.grad)]


def grad_of_one_input(lib, dtype, device, call=_plain):
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, b: a * b)
    _logging_hooks(lib, m, log)
    a, b = t([1.0, 2.0], True), t([3.0, 4.0], True)
    (ga,) = lib.autograd.grad(call(m, a, b).sum(), a)
    return [log, seen(ga), seen(b.grad)]


def inputs_of_two_dtypes(lib, dtype, device, call=_plain):
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, b: a * b)
    _logging_hooks(lib, m, log)
    a, b = t([1.0, 2.0], True, "float32"), t([3.0, 4.0], True, "float64")
    call(m, a, b).sum().backward()
    return [log, seen(a.grad), seen(b.grad)]


def create_graph_through_the_hooks(lib, dtype, device, call=_plain):
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, b: a * b * b)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 2, gi[1]))
    a, b = t([1.0, 2.0], True), t([3.0, 4.0], True)
    ga, gb = lib.autograd.grad(call(m, a, b).sum(), (a, b), create_graph=True)
    (ga * gb).sum().backward()
    return [log, seen(ga), seen(gb), seen(a.grad), seen(b.grad)]


def attention_and_lstm(lib, dtype, device, call=_plain):
    # layers of several outputs: MultiheadAttention (output, weights), LSTM (output, (h, c))
    t, log = _tensors(lib, dtype, device), []
    lib.manual_seed(0)
    mha, lstm = lib.nn.MultiheadAttention(4, 2), lib.nn.LSTM(4, 3)
    for layer in (mha, lstm):
        layer.to(device=device, dtype=getattr(lib, dtype))
        with lib.no_grad():
            for k, p in enumerate(layer.parameters()):
                p.copy_(lib.linspace(-0.5, 0.5 + k / 10, p.numel(), dtype=p.dtype, device=device).reshape(p.shape))
    shapes = lambda gs: [None if g is None else list(g.shape) for g in gs]  # noqa: E731
    for layer in (mha, lstm):
        layer.register_full_backward_pre_hook(lambda mod, go: log.append(["pre", shapes(go)]))
        layer.register_full_backward_hook(lambda mod, gi, go: log.append(["full", shapes(gi), shapes(go)]))
    x = t([[[0.1 * i - 0.3 * j for i in range(4)]] for j in range(3)], True)
    key = t([[[0.2 * i + 0.1 * j for i in range(4)]] for j in range(2)])
    out, weights = call(mha, x, key, key)
    seq, (h, c) = call(lstm, out)
    (seq.sum() + h.sum() * 2 + weights.sum()).backward()
    return [log, seen(x.grad)]


def real_and_complex_inputs(lib, dtype, device, call=_plain):
    # real and complex tensors that require grad, in and out of one module
    t, log = _tensors(lib, dtype, device), []
    m = _module(lib, lambda a, z, c: ((a * z * c).abs(), z * 2))
    _logging_hooks(lib, m, log)
    complex_dtype = {"float32": "complex64", "float64": "complex128"}[dtype]
    a, z = t([1.0, 2.0], True), t([1 + 1j, 2j], True, complex_dtype)
    r, w = call(m, a, z, t([1.0, -1.0]))
    (r.sum() + (w * w).real.sum()).backward()
    return [log, seen(a.grad), seen(z.grad)]


def wrong_number_of_grad_input(lib, dtype, device, call=_plain):
    t = _tensors(lib, dtype, device)
    m = _module(lib, lambda a, b: a * b)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0],))
    try:
        call(m, t([1.0], True), t([2.0], True)).sum().backward()
    except RuntimeError as e:
        return [str(e)]
    return ["no error"]


def wrong_number_of_grad_output(lib, dtype, device, call=_plain):
    t = _tensors(lib, dtype, device)
    m = _module(lib, lambda a: (a * 2, a * 3))
    m.register_full_backward_pre_hook(lambda mod, go: (go[0],))
    try:
        sum(y.sum() for y in call(m, t([1.0], True))).backward()
    except RuntimeError as e:
        return [str(e)]
    return ["no error"]


def grad_input_returned_where_no_input_requires_grad(lib, dtype, device, call=_plain):
    t = _tensors(lib, dtype, device)
    lin = lib.nn.Linear(2, 1).to(device=device, dtype=getattr(lib, dtype))
    lin.register_full_backward_hook(lambda mod, gi, go: (t([[1.0, 1.0]]),))
    try:
        call(lin, t([[1.0, 2.0]])).sum().backward()
    except RuntimeError as e:
        return [str(e)]
    return ["no error"]


PROGRAMS = [input_without_grad_gets_zeros, input_no_gradient_reaches, input_behind_an_unused_output,
            hook_replaces_several_grad_inputs, pre_hook_on_several_outputs, same_tensor_three_times,
            two_backward_passes, grad_of_one_input, inputs_of_two_dtypes, create_graph_through_the_hooks,
            attention_and_lstm, real_and_complex_inputs, wrong_number_of_grad_input, wrong_number_of_grad_output,
            grad_input_returned_where_no_input_requires_grad]
