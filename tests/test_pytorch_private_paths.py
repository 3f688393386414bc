"""Names that PyTorch keeps under a private path and that published libraries import from there, so
that a port by renaming ``torch`` to ``mg`` finds them.  Opacus (``opacus/layers/param_rename.py``,
``opacus/data_loader.py``) imports all three below; before, each import failed."""

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn


def test_incompatible_keys_at_the_path_of_torch_nn_modules_module():
    # Opacus's RenameParamsMixin.load_state_dict returns the named pair it builds from this class.
    from minigrad_ckpt.nn.modules.module import _IncompatibleKeys

    answer = nn.Linear(2, 3).load_state_dict(nn.Linear(2, 3).state_dict())
    assert type(answer) is _IncompatibleKeys
    keys = _IncompatibleKeys(missing_keys=["w"], unexpected_keys=[])
    assert keys.missing_keys == ["w"] and keys.unexpected_keys == []
    # PyTorch's reprs of both cases:
    assert repr(_IncompatibleKeys([], [])) == "<All keys matched successfully>"
    assert repr(keys) == "_IncompatibleKeys(missing_keys=['w'], unexpected_keys=[])"


def test_default_collate_at_the_path_of_torch_utils_data_utils_collate():
    # Opacus's DPDataLoader collates with it (and wraps it to give an empty batch its shape).
    from minigrad_ckpt.utils.data import default_collate as public
    from minigrad_ckpt.utils.data._utils.collate import default_collate, default_convert

    assert default_collate is public and default_convert is mg.utils.data.default_convert
    batch = default_collate([(mg.tensor([1.0, 2.0]), 0), (mg.tensor([3.0, 4.0]), 1)])
    assert batch[0].tolist() == [[1.0, 2.0], [3.0, 4.0]] and batch[1].tolist() == [0, 1]


def test_the_type_aliases_of_torch_utils_data_dataloader():
    # DPDataLoader's signature: collate_fn: Optional[_collate_fn_t].
    from collections.abc import Callable

    from minigrad_ckpt.utils.data.dataloader import _collate_fn_t, _worker_init_fn_t

    assert _collate_fn_t.__origin__ is Callable and _worker_init_fn_t.__origin__ is Callable


def test_the_names_copied_collate_functions_import_from_torch_utils_data_utils_collate():
    # taming-transformers' taming/data/utils.py (``custom_collate``, a copy of PyTorch 1.9's default_collate)
    # imports both; before, the import failed.  PyTorch 2.13's values:
    import numpy as np

    from minigrad_ckpt.utils.data._utils.collate import default_collate_err_msg_format, np_str_obj_array_pattern

    assert np_str_obj_array_pattern.pattern == "[SaUO]"
    assert default_collate_err_msg_format == ("default_collate: batch must contain tensors, numpy arrays, "
                                              "numbers, dicts or lists; found {}")

    def custom_collate(batch):  # taming's branches for arrays and for a type nothing batches
        elem = batch[0]
        if isinstance(elem, np.ndarray):
            if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
                raise TypeError(default_collate_err_msg_format.format(elem.dtype))
            return mg.stack([mg.as_tensor(b) for b in batch])
        raise TypeError(default_collate_err_msg_format.format(type(elem)))

    assert custom_collate([np.zeros(2), np.ones(2)]).tolist() == [[0.0, 0.0], [1.0, 1.0]]
    for refused, found in (([np.array(["a"])], "<U1"), ([np.array([None])], "object"), ([{1}], "<class 'set'>")):
        try:
            custom_collate(refused)
        except TypeError as e:
            assert str(e) == ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                              "found " + found)
        else:
            raise AssertionError("refused nothing")
