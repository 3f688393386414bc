"""Module.__getstate__ / __setstate__, as PyTorch's Module has them.

A subclass that keeps old copies loadable fills in what they lack and then calls
``super().__setstate__(state)``; copy.deepcopy and pickle run that method, so without the base
class's it was an AttributeError ('super' object has no attribute '__setstate__').  Found by
translating PyTorch's test_save_lstm_compatibility (test/test_nn.py), which calls
``LSTM.__setstate__`` directly.
"""
import copy
import pickle

import numpy as np

import minigrad_ckpt as mg


class _WithDefault(mg.nn.Module):
    """An attribute added in a 'newer version': an old state gets the default."""

    def __init__(self):
        super().__init__()
        self.lin = mg.nn.Linear(2, 2)
        self.scale = 3.0

    def forward(self, x):
        return self.lin(x) * self.scale

    def __setstate__(self, state):
        state.setdefault("scale", 1.0)
        super().__setstate__(state)


class _DropsCache(mg.nn.Module):
    """A cache left out of copies through ``super().__getstate__()``."""

    def __init__(self):
        super().__init__()
        self.lin = mg.nn.Linear(2, 2)
        self.cache = object()

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("cache")
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self.cache = None


def test_deepcopy_runs_a_subclass_setstate_that_calls_super():
    m = _WithDefault()
    m2 = copy.deepcopy(m)
    assert m2.scale == 3.0 and m2.lin is not m.lin
    x = mg.tensor(np.arange(4.0).reshape(2, 2), dtype=mg.float32)
    np.testing.assert_array_equal(m2(x).detach().numpy(), m(x).detach().numpy())


def test_pickle_round_trip_runs_a_subclass_setstate_that_calls_super():
    m2 = pickle.loads(pickle.dumps(_WithDefault()))
    assert m2.scale == 3.0 and isinstance(m2.lin, mg.nn.Linear)


def test_an_old_state_takes_the_default():
    m = _WithDefault()
    state = m.__getstate__()
    del state["scale"]
    fresh = _WithDefault.__new__(_WithDefault)
    fresh.__setstate__(state)
    assert fresh.scale == 1.0


def test_getstate_is_a_copy_of_the_instance_dict_and_super_getstate_works():
    m = _DropsCache()
    state = mg.nn.Module.__getstate__(m)
    assert state == m.__dict__ and state is not m.__dict__
    m2 = copy.deepcopy(m)
    assert m2.cache is None and m.cache is not None
    m3 = pickle.loads(pickle.dumps(m))
    assert m3.cache is None


def test_lstm_setstate_from_another_lstm_dict():
    # PyTorch's test_save_lstm_compatibility: a state dict of attributes without proj_size
    model = mg.nn.LSTM(2, 3)
    x = mg.tensor(np.linspace(-1, 1, 32 * 5 * 2).reshape(32, 5, 2), dtype=mg.float32)
    expected = model(x)[0].detach().numpy()
    state = model.__dict__
    del state["proj_size"]
    loaded = mg.nn.LSTM(2, 3)
    loaded.__setstate__(state)
    assert loaded.proj_size == 0
    np.testing.assert_allclose(loaded(x)[0].detach().numpy(), expected, rtol=1e-6, atol=1e-7)
