"""A failing gradient check as a standalone script (:meth:`GradcheckError.repro_script`).

The script holds the function's source where :mod:`inspect` can find it (a ``def``,
or the text of a ``lambda``), the inputs embedded bit-exactly (each array's bytes in
hex, with its dtype and shape, so a float64 comes back to the last bit) and the
call that failed.  What the function refers to besides ``mg`` and ``np`` (its
globals, its closure) is not carried: the script says so where it applies.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from ..backend import to_host
from ..tensor import Tensor

__all__ = ["repro_script"]


def repro_script(check: str, fn: Callable, inputs: Sequence[Any], options: dict[str, Any], message: str) -> str:
    """The text of a script that runs ``mg.testing.<check>(fn, inputs, **options)`` again."""
    lines = ['"""Reproduces a failing gradient check:', "", textwrap.indent(message.splitlines()[0], "    "),
             '"""', "import numpy as np", "", "import minigrad_ckpt as mg", "", "", _function_source(fn), "",
             "inputs = ["]
    lines += [f"    {_value(v)}," for v in inputs]
    lines.append("]")
    opts = "".join(f", {k}={_value(v) if k == 'grad_outputs' else repr(v)}" for k, v in options.items())
    lines += ["", f"mg.testing.{check}(fn, inputs{opts})", ""]
    return "\n".join(lines)


def _value(v: Any) -> str:
    """Python source that rebuilds ``v`` exactly: a Tensor from its bytes, a list element by element."""
    if isinstance(v, Tensor):
        a = to_host(v._data)
        rebuilt = (f"np.frombuffer(bytes.fromhex({a.tobytes().hex()!r}), dtype={a.dtype.str!r})"
                   f".reshape({tuple(a.shape)!r})")
        return f"mg.tensor({rebuilt}, requires_grad={v.requires_grad!r})"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return repr(v)


def _function_source(fn: Callable) -> str:
    """``fn = ...``: the function's own source, or a note where it cannot be found."""
    picked = getattr(fn, "picks_outputs", None)
    if picked is not None:  # mg.autograd.gradcheck's: some outputs of the user's function
        every, keep = picked
        return (f"{_function_source(every)}\nevery_output = fn\n\n\n"
                f"def fn(*args):  # the outputs that require grad, which PyTorch's gradcheck compares\n"
                f"    outs = every_output(*args)\n    return tuple(outs[i] for i in {tuple(keep)!r})")
    owner = getattr(fn, "__self__", None)
    if inspect.ismethod(fn) and inspect.isclass(owner):  # MyFunction.apply: the user's class, not apply's
        try:
            source = textwrap.dedent(inspect.getsource(owner))
        except (OSError, TypeError):
            return f"# the source of class {owner.__name__} could not be found: define it here\nfn = None"
        return f"{source}\n\nfn = {owner.__name__}.{fn.__name__}"
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return f"# the source of {fn!r} could not be found: define it here\nfn = None"
    if fn.__name__ != "<lambda>":
        return f"{source}\n\nfn = {fn.__name__}"
    found = _lambda_text(source, fn)
    if found is None:
        return f"# the lambda's line, as found (make it a definition of fn):\n# {source.strip()}\nfn = None"
    return f"fn = {found}"


def _lambda_text(source: str, fn: Callable) -> str | None:
    """The text of the lambda in ``source`` with ``fn``'s parameters (the first one, if several)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a lambda inside a larger statement's first lines
        try:
            tree = ast.parse("(" + source.strip().rstrip(":") + ")")
            source = "(" + source.strip().rstrip(":") + ")"
        except SyntaxError:
            return None
    params = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and tuple(a.arg for a in node.args.args) == params:
            return ast.get_source_segment(source, node)
    return None
