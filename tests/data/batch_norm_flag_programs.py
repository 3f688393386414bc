"""BatchNorm whose flags or buffers a program changes after construction, written once for torch and
minigrad_ckpt: ``run(lib, case, modes, dtype)`` returns, for each call in ``modes`` (True: training
mode), the output, the input's gradient, the running mean and the batch count, as JSON data.
``make_torch_batch_norm_flags.py`` records torch's answers; ``tests/test_batch_norm_flags.py`` replays them."""

from __future__ import annotations

from typing import Any

X = [[1.0, 2.0], [3.0, 5.0], [0.0, -1.0]]

CASES: dict[str, dict[str, dict]] = {
    "track_running_stats off after": {"after": {"track_running_stats": False}},
    "running buffers dropped": {"after": {"running_mean": None, "running_var": None}},
    "track_running_stats off after, momentum None": {"after": {"track_running_stats": False, "momentum": None}},
    "built without running stats, flag on after": {"ctor": {"track_running_stats": False},
                                                   "after": {"track_running_stats": True}},
    "num_batches_tracked dropped": {"after": {"num_batches_tracked": None}},
    "num_batches_tracked dropped, momentum None": {"ctor": {"momentum": None}, "after": {"num_batches_tracked": None}},
    "plain": {},
    "momentum None": {"ctor": {"momentum": None}},
    "built without running stats": {"ctor": {"track_running_stats": False}},
}
MODES = {"train, train, eval": [True, True, False], "eval, train": [False, True]}


def _values(t: Any) -> Any:
    return None if t is None else t.detach().cpu().numpy().tolist()


def run(lib: Any, case: str, modes: list[bool], dtype: str) -> list:
    setup = CASES[case]
    bn = lib.nn.BatchNorm1d(2, dtype=getattr(lib, dtype), **setup.get("ctor", {}))
    for name, value in setup.get("after", {}).items():
        setattr(bn, name, value)
    log = []
    for training in modes:
        bn.train(training)
        x = lib.tensor(X, dtype=getattr(lib, dtype), requires_grad=True)
        y = bn(x)
        (y * lib.tensor([[1.0, 2.0]], dtype=getattr(lib, dtype))).sum().backward()
        log.append([_values(y), _values(x.grad), _values(bn.running_mean), _values(bn.num_batches_tracked)])
    return log
