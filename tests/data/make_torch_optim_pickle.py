"""Record what PyTorch does when an optimizer with hooks is pickled or deep-copied: its
``__getstate__`` keeps ``defaults``, ``state`` and ``param_groups`` only, so a lambda hook does not
stop the pickle and the copy runs no hooks.
``python tests/data/make_torch_optim_pickle.py`` writes ``tests/data/torch_optim_pickle.json``
(needs torch; the tests do not)."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def copied(make_copy) -> dict:
    """Adam with one hook of each kind stepped once, copied, the copy stepped and its state dict
    saved and loaded: what hooks ran on the copy, its step count and its first parameter."""
    calls: list[str] = []
    p = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    opt = torch.optim.Adam([p], lr=0.1)
    opt.register_step_pre_hook(lambda *a: calls.append("step_pre"))
    opt.register_step_post_hook(lambda *a: calls.append("step_post"))
    opt.register_state_dict_pre_hook(lambda *a: calls.append("state_dict_pre"))
    opt.register_state_dict_post_hook(lambda *a: calls.append("state_dict_post"))
    opt.register_load_state_dict_pre_hook(lambda *a: calls.append("load_pre"))
    opt.register_load_state_dict_post_hook(lambda *a: calls.append("load_post"))
    p.grad = torch.ones(3)
    opt.step()
    calls.clear()
    twin = make_copy(opt)
    q = twin.param_groups[0]["params"][0]
    q.grad = torch.full((3,), 0.5)
    twin.step()
    twin.load_state_dict(twin.state_dict())
    return {"calls": calls, "step": float(twin.state[q]["step"]), "param": q.detach().tolist()}


def main() -> None:
    out = {
        "torch": torch.__version__,
        "pickled": copied(lambda opt: pickle.loads(pickle.dumps(opt))),
        "deepcopied": copied(copy.deepcopy),
    }
    (HERE / "torch_optim_pickle.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
