"""Record what PyTorch's ``Optimizer.load_state_dict`` does with parameter groups: its messages
when the group count or a group's size differs, and the groups after a load (the saved group is
the whole group: a key only the loading optimizer had is dropped).
``python tests/data/make_torch_optim_load_groups.py`` writes
``tests/data/torch_optim_load_groups.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import json
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def params(n: int = 2) -> list[torch.Tensor]:
    return [torch.arange(3.0).add(i).requires_grad_() for i in range(n)]


def message(load) -> str:
    try:
        load()
    except ValueError as exc:
        return str(exc)
    raise AssertionError("PyTorch loaded it")


def groups_after_load(momentum: float) -> list[dict]:
    """An SGD's groups after loading a momentum SGD's state whose first group has a hand-added key."""
    ps = params(3)
    saved = torch.optim.SGD([{"params": ps[:2], "tag": "saved"}, {"params": ps[2:], "lr": 0.5}],
                            lr=0.1, momentum=momentum)
    saved.param_groups[0]["lr"] = 0.25  # an lr edited by hand travels with the state
    loading = torch.optim.SGD([{"params": params(2), "only_here": 1}, {"params": params(1)}], lr=0.3)
    loading.param_groups[1]["also_only_here"] = 2
    loading.load_state_dict(saved.state_dict())
    return [{k: v for k, v in g.items() if k != "params"} for g in loading.param_groups]


def main() -> None:
    ps = params()
    one_group = torch.optim.SGD(ps, lr=0.1)
    two_groups = torch.optim.SGD([{"params": ps[:1]}, {"params": ps[1:]}], lr=0.1)
    fewer = torch.optim.SGD(params(1), lr=0.1)
    out = {
        "torch": torch.__version__,
        "group_count": message(lambda: one_group.load_state_dict(two_groups.state_dict())),
        "group_size": message(lambda: fewer.load_state_dict(one_group.state_dict())),
        "groups_after_load": groups_after_load(0.9),
    }
    (HERE / "torch_optim_load_groups.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
