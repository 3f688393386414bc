"""A detached alias (``detach()``, ``.data``) pickles and deep-copies as any tensor: its alias group,
which lists weak references to the views sharing its history, stays behind, since the copy has
memory of its own.  (An optimizer's state dict holds ``detach()``-made buffers, and DDP's ``join``
broadcasts it with pickle: the group's weak references made that raise.)"""

from __future__ import annotations

import copy
import pickle

import numpy as np

import minigrad_ckpt as mg


def test_detached_aliases_pickle_as_fresh_leaves():
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for alias in (w.detach(), w.data, w.detach()[1:]):
        back = pickle.loads(pickle.dumps(alias))
        np.testing.assert_array_equal(back.numpy(), alias.numpy())
        assert back._alias_group is None and not back.requires_grad
        back.mul_(2)  # its own memory
        np.testing.assert_array_equal(w.detach().numpy(), [1.0, 2.0, 3.0])


def test_a_deep_copy_of_a_detached_alias_has_no_group_of_the_original():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    d = w.detach()
    c = copy.deepcopy(d)
    assert c._alias_group is None
    np.testing.assert_array_equal(c.numpy(), d.numpy())


def test_an_optimizer_state_dict_with_momentum_buffers_pickles():
    p = mg.nn.Parameter(mg.ones(4))
    opt = mg.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = mg.ones(4)
    opt.step()
    state = pickle.loads(pickle.dumps(opt.state_dict()))
    np.testing.assert_array_equal(state["state"][0]["momentum_buffer"].numpy(), np.ones(4, dtype=np.float32))
