"""A recorded in-place write into memory another tensor shares, then a write off the tape (under
``no_grad``, through ``.data`` or a detached alias) into the same memory, written once for torch and
minigrad_ckpt: ``run(lib, name, wrap)`` returns ``x.grad`` of ``sum(sin(f(x)))``, where ``wrap`` runs
``f`` as it is or inside a checkpoint.  ``make_torch_seams.py`` records torch's answers
(``f`` as it is); ``tests/test_checkpoint_untracked_writes.py`` replays them with the engine's
checkpoints.
"""

from __future__ import annotations

from typing import Any

P = [0.3, -0.7, 1.2, 2.0]


def _no_grad_after(lib: Any, y: Any, d: Any, a: Any) -> None:
    y.mul_(2.0)
    with lib.no_grad():
        y.mul_(2.0)


def _data_after(lib: Any, y: Any, d: Any, a: Any) -> None:
    y.mul_(2.0)
    y.data.mul_(2.0)


PROGRAMS = {
    "detached alias written after": lambda lib, y, d, a: (y.mul_(2.0), d.mul_(2.0)),
    "detached alias written before": lambda lib, y, d, a: (d.mul_(2.0), y.mul_(2.0)),
    "detached alias added to after": lambda lib, y, d, a: (y.mul_(2.0), d.add_(1.0)),
    "argument added, then alias written": lambda lib, y, d, a: (y.add_(a), d.mul_(3.0)),
    "no_grad write after": _no_grad_after,
    ".data write after": _data_after,
    "view written, then alias": lambda lib, y, d, a: (y[1:].mul_(2.0), d.mul_(2.0)),
    "multiplied by the argument, then alias": lambda lib, y, d, a: (y.mul_(a), d.mul_(2.0)),
}


def function(lib: Any, name: str) -> Any:
    def f(a: Any) -> Any:
        y = a * 1
        d = y.detach()  # shares y's memory: y's recorded writes go into it
        PROGRAMS[name](lib, y, d, a)
        return y.sin().sum()
    return f


def run(lib: Any, name: str, wrap: Any = None, device: Any = None, dtype: Any = None) -> list:
    x = lib.tensor(P, dtype=dtype or lib.float64, device=device, requires_grad=True)
    f = function(lib, name)
    (f(x) if wrap is None else wrap(f, x)).backward()
    return x.grad.cpu().tolist()
