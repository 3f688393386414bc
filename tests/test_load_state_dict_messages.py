"""``load_state_dict``'s error says what PyTorch's says, in its words and layout, so a ported program or
a log search that looks for ``'Missing key(s) in state_dict'`` or ``'Unexpected key(s)'`` finds it.
torch 2.13, for ``nn.Linear(2, 2).load_state_dict({"weight": ones(2, 2), "foo": ones(1)})``:
``'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". \n\tUnexpected key(s)
in state_dict: "foo". '``; and with a weight of shape (3, 2): ``size mismatch for weight: copying a param with shape
torch.Size([3, 2]) from checkpoint, the shape in current model is torch.Size([2, 2]).`` (the engine writes
shapes as tuples), after the key problems.  The engine said ``missing keys: bias`` and ``size mismatch for
weight: expected (2, 2), got (3, 2)``."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

nn = mg.nn


class Renaming(nn.Linear):
    """An override of ``_load_from_state_dict``: the module-by-module path says the same."""

    def _load_from_state_dict(self, state_dict, prefix, *args):
        super()._load_from_state_dict(state_dict, prefix, *args)


@pytest.mark.parametrize("cls", [nn.Linear, Renaming])
def test_key_problems_in_pytorchs_words(cls):
    with pytest.raises(RuntimeError) as caught:
        cls(2, 2).load_state_dict({"weight": mg.ones(2, 2), "foo": mg.ones(1)})
    assert str(caught.value) == (f"Error(s) in loading state_dict for {cls.__name__}:\n"
                                 f'\tMissing key(s) in state_dict: "bias". \n'
                                 f'\tUnexpected key(s) in state_dict: "foo". ')


@pytest.mark.parametrize("cls", [nn.Linear, Renaming])
def test_a_size_mismatch_after_the_key_problems(cls):
    with pytest.raises(RuntimeError) as caught:
        cls(2, 2).load_state_dict({"weight": mg.ones(3, 2)})
    assert str(caught.value) == (f"Error(s) in loading state_dict for {cls.__name__}:\n"
                                 f'\tMissing key(s) in state_dict: "bias". \n'
                                 f"\tsize mismatch for weight: copying a param with shape (3, 2) from checkpoint, "
                                 f"the shape in current model is (2, 2).")
