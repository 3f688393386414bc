"""``mg.save`` / ``mg.load`` take PyTorch's pickling arguments, which change nothing here since
nothing is pickled: ``torch.save(sd, f, _use_new_zipfile_serialization=False)`` (the spelling of a
checkpoint meant for older PyTorch readers), ``pickle_protocol=4``, a ``pickle_module`` given
positionally, ``torch.load(f, encoding="latin1")`` and the ``obj=``/``f=`` keywords were each a
TypeError.  Found running PyTorch's serialization tests (their saves pass ``pickle_protocol``)."""
from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg


def _loaded(buffer, *args, **keywords):
    buffer.seek(0)
    return mg.load(buffer, *args, **keywords)


def test_save_takes_pytorchs_pickle_arguments():
    x = mg.arange(4.0)
    for args, keywords in [((), {"pickle_protocol": 4}), ((pickle, 2), {}), ((pickle,), {"pickle_protocol": -1}),
                           ((), {"_use_new_zipfile_serialization": False}), ((), {"_disable_byteorder_record": True})]:
        buffer = io.BytesIO()
        mg.save({"x": x}, buffer, *args, **keywords)
        np.testing.assert_array_equal(_loaded(buffer)["x"].numpy(), x.numpy())


def test_save_and_load_take_pytorchs_argument_names(tmp_path):
    mg.save(obj={"n": 3}, f=tmp_path / "ck.pt")
    assert mg.load(f=tmp_path / "ck.pt") == {"n": 3}


def test_a_protocol_pickle_would_refuse_is_refused_in_its_words():
    with pytest.raises(ValueError, match=f"pickle protocol must be <= {pickle.HIGHEST_PROTOCOL}"):
        mg.save(mg.ones(1), io.BytesIO(), pickle_protocol=99)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        mg.save(mg.ones(1), io.BytesIO(), pickle_protocol="4")


def test_load_takes_a_pickle_module_and_the_unpicklers_keywords():
    buffer = io.BytesIO()
    mg.save({"w": mg.ones(2)}, buffer)
    assert _loaded(buffer, None, pickle)["w"].shape == (2,)
    assert _loaded(buffer, "cpu", pickle, encoding="latin1")["w"].shape == (2,)
    assert _loaded(buffer, weights_only=False, encoding="utf-8", errors="strict", fix_imports=True)["w"].shape == (2,)
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        _loaded(buffer, foo=1)
    with pytest.raises(TypeError):  # weights_only stays keyword-only, as PyTorch's
        _loaded(buffer, None, None, True)
