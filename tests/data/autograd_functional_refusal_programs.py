"""Calls of ``autograd.functional`` that torch refuses, written once for torch and minigrad_ckpt:
``run(lib, case)`` returns ``[exception type name, message]`` (or ``["ok", None]``).
``make_torch_forward_mode_parity.py`` records torch's answers; ``tests/test_forward_mode_parity.py``
replays them."""

from __future__ import annotations

from typing import Any


def _cube_sum(a: Any) -> Any:
    return (a ** 3).sum()


CASES: dict[str, Any] = {
    "jacobian forward-mode without vectorize": lambda lib, x: lib.autograd.functional.jacobian(
        lambda a: a * 2, x, strategy="forward-mode"),
    "jacobian forward-mode create_graph": lambda lib, x: lib.autograd.functional.jacobian(
        lambda a: a * 2, x, strategy="forward-mode", vectorize=True, create_graph=True),
    "jacobian forward-mode strict vectorize": lambda lib, x: lib.autograd.functional.jacobian(
        lambda a: a * 2, x, strategy="forward-mode", vectorize=True, strict=True),
    "jacobian forward-mode vectorize": lambda lib, x: lib.autograd.functional.jacobian(
        lambda a: a * 2, x, strategy="forward-mode", vectorize=True),
    "hessian forward-mode without vectorize": lambda lib, x: lib.autograd.functional.hessian(
        _cube_sum, x, outer_jacobian_strategy="forward-mode"),
    "hessian forward-mode create_graph": lambda lib, x: lib.autograd.functional.hessian(
        _cube_sum, x, outer_jacobian_strategy="forward-mode", vectorize=True, create_graph=True),
    "hessian forward-mode strict vectorize": lambda lib, x: lib.autograd.functional.hessian(
        _cube_sum, x, outer_jacobian_strategy="forward-mode", vectorize=True, strict=True),
    "hessian unknown strategy": lambda lib, x: lib.autograd.functional.hessian(
        _cube_sum, x, outer_jacobian_strategy="fwd"),
    "jvp of an integer input": lambda lib, x: lib.autograd.functional.jvp(
        lambda a: a * 2, x.long(), x.long()),
    "vjp of an integer input": lambda lib, x: lib.autograd.functional.vjp(
        lambda a: a * 2, x.long(), x.long()),
    "jacobian of an integer input": lambda lib, x: lib.autograd.functional.jacobian(lambda a: a * 2, x.long()),
    "hessian of an integer input": lambda lib, x: lib.autograd.functional.hessian(_cube_sum, x.long()),
    "hvp of an integer input": lambda lib, x: lib.autograd.functional.hvp(_cube_sum, x.long(), x.long()),
    "vhp of a bool input": lambda lib, x: lib.autograd.functional.vhp(_cube_sum, x > 1, x > 1),
}


def run(lib: Any, case: str) -> list:
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    try:
        CASES[case](lib, x)
    except Exception as e:  # noqa: BLE001  (the answer is the exception)
        return [type(e).__name__, str(e)]
    return ["ok", None]
