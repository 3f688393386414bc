"""Custom functions whose ``jvp`` meets PyTorch's rules, written once for torch and minigrad_ckpt.
``make_torch_forward_mode_parity.py`` records torch's answers; ``tests/test_forward_mode_parity.py``
replays them."""

from __future__ import annotations

from typing import Any

KINDS = ("round", "argmax")  # how output 0, which has no tangent, is made


def with_nondifferentiable_output(lib: Any, kind: str) -> Any:
    """``(x.round() or x.argmax(), x * 2)``, output 0 without a tangent, whose jvp wrongly returns one."""

    class WithNondifferentiableOutput(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return (x.round() if kind == "round" else x.argmax()), x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            if kind == "round":
                ctx.mark_non_differentiable(output[0])

        @staticmethod
        def backward(ctx, a, b):
            return 2 * b

        @staticmethod
        def jvp(ctx, xt):
            return lib.zeros_like(xt), 2 * xt

    return WithNondifferentiableOutput


def tangent_for_nondifferentiable_output(lib: Any, kind: str) -> list:
    """``[exception type, message]`` of ``jvp`` through :func:`with_nondifferentiable_output`."""
    function = with_nondifferentiable_output(lib, kind)
    try:
        lib.func.jvp(lambda x: function.apply(x)[1], (lib.ones(3),), (lib.ones(3),))
    except Exception as e:  # noqa: BLE001  (the answer is the exception)
        return [type(e).__name__, str(e)]
    return ["ok", None]


def scale(lib: Any, materialize: bool, number: bool, seen: list) -> Any:
    """``x * y``, its jvp appending the tangents it is handed to ``seen``; ``materialize`` is
    ``set_materialize_grads``'s value; with ``number``, its jvp returns a Python number."""

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, g

        @staticmethod
        def setup_context(ctx, inputs, output):  # (any order: torch reads them by name)
            ctx.save_for_forward(*inputs)
            ctx.set_materialize_grads(materialize)

        @staticmethod
        def jvp(ctx, xt, yt):
            seen.append([None if t is None else t.tolist() for t in (xt, yt)])
            x, y = ctx.saved_tensors
            return 3.0 if number else xt * y

    return Scale


def jvp_input_tangents(lib: Any) -> dict:
    """What a custom jvp is handed for an input without a tangent (with and without
    ``materialize_grads``), and the error for a number returned as a tangent."""
    found: dict = {}
    for materialize, number in ((True, False), (False, False), (True, True)):
        seen: list = []
        function = scale(lib, materialize, number, seen)
        try:
            _, tangent = lib.func.jvp(lambda x, fn=function: fn.apply(x, lib.full((2,), 2.0)),
                                      (lib.ones(2),), (lib.ones(2),))
            found[f"materialize={materialize}, number={number}"] = [seen, tangent.tolist()]
        except Exception as e:  # noqa: BLE001  (the answer is the exception)
            found[f"materialize={materialize}, number={number}"] = [type(e).__name__, str(e)]
    return found
