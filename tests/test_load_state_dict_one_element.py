"""``load_state_dict`` loads a one-element 1-D entry into a 0-d parameter or buffer, as PyTorch's
(``_load_from_state_dict``'s backward compatibility with PyTorch 0.3 checkpoints): torch 2.13 loads
``{"num_batches_tracked": tensor([7])}`` into a BatchNorm (7) and ``{"p": tensor([3.])}`` into a 0-d
Parameter (3., still requiring grad); an entry of shape (2,) or (1, 1) is a size mismatch.  The engine
refused the (1,) entry as a size mismatch."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

nn = mg.nn


class Scalar(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.p = nn.Parameter(mg.tensor(1.0))


class Renaming(Scalar):
    """A module that overrides ``_load_from_state_dict`` (PyTorch's per-module path)."""

    def _load_from_state_dict(self, state_dict, prefix, *args):
        if prefix + "old_p" in state_dict:
            state_dict[prefix + "p"] = state_dict.pop(prefix + "old_p")
        super()._load_from_state_dict(state_dict, prefix, *args)


@pytest.mark.parametrize("assign", [False, True])
@pytest.mark.parametrize("strict", [True, False])
def test_a_one_element_entry_loads_into_a_0d_tensor(strict, assign):
    bn = nn.BatchNorm1d(2)
    state = dict(bn.state_dict())
    state["num_batches_tracked"] = mg.tensor([7])
    bn.load_state_dict(state, strict=strict, assign=assign)
    assert bn.num_batches_tracked.shape == () and int(bn.num_batches_tracked) == 7
    for m, key in ((Scalar(), "p"), (Renaming(), "old_p")):
        m.load_state_dict({key: mg.tensor([3.0])}, strict=strict, assign=assign)
        assert m.p.shape == () and m.p.item() == 3.0 and m.p.requires_grad and isinstance(m.p, nn.Parameter)


@pytest.mark.parametrize("shape", [(2,), (1, 1)])
def test_other_shapes_are_a_size_mismatch(shape):
    with pytest.raises(RuntimeError, match="size mismatch for p"):
        Scalar().load_state_dict({"p": mg.ones(*shape)})
