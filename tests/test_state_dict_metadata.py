"""A state dict carries PyTorch's ``_metadata``: each module's format version, by module path.

torchvision's MNASNet (``_version = 2``) checks ``local_metadata["version"]`` in its
``_load_from_state_dict`` and raises when it is missing, so without the metadata even
``model.load_state_dict(model.state_dict())`` failed; a module that migrates an older format's
keys needs the version to know which format it is reading. The metadata survives ``mg.save`` /
``mg.load`` (as it survives ``torch.save``'s pickle) and ``copy.deepcopy``.
"""
from __future__ import annotations

import copy
from collections import OrderedDict

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


class Versioned(nn.Module):
    """A layer whose format 2 renamed ``w`` to ``weight`` and that refuses an unknown format,
    as torchvision's MNASNet does."""

    _version = 2

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(mg.arange(3.0))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version not in (1, 2):
            raise ValueError(f"version should be set to 1 or 2 instead of {version}")
        if version == 1 and prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


def model() -> nn.Module:
    return nn.Sequential(nn.Linear(3, 3), nn.Sequential(nn.BatchNorm1d(3), Versioned()))


def test_state_dict_records_each_modules_version_by_path_as_pytorch():
    sd = model().state_dict()
    # torch 2.13 on the same tree: nn.Sequential / nn.Linear are version 1, _NormBase version 2
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("0", {"version": 1}), ("1", {"version": 1}),
                                        ("1.0", {"version": 2}), ("1.1", {"version": 2})])
    assert list(model().state_dict(prefix="net.")._metadata) == ["net", "net.0", "net.1", "net.1.0", "net.1.1"]
    assert not hasattr(model().state_dict(destination={}), "_metadata")  # a caller's dict is left as given


@pytest.mark.parametrize("through", ["itself", "deepcopy", "mg.save"])
def test_a_module_that_reads_its_version_loads_its_own_state_dict(through, tmp_path):
    src, dst = model(), model()
    with mg.no_grad():
        src[1][1].weight.mul_(5.0)
    sd = src.state_dict()
    if through == "deepcopy":
        sd = copy.deepcopy(sd)
    elif through == "mg.save":
        mg.save(sd, tmp_path / "sd.mg")
        sd = mg.load(tmp_path / "sd.mg")
        assert sd._metadata["1.1"] == {"version": 2}
    dst.load_state_dict(sd)
    np.testing.assert_array_equal(dst[1][1].weight.detach().numpy(), [0.0, 5.0, 10.0])


def test_an_older_format_is_migrated_by_the_version_it_declares():
    sd = model().state_dict()
    old = OrderedDict((k.replace("1.1.weight", "1.1.w"), v) for k, v in sd.items())
    old._metadata = OrderedDict(sd._metadata)
    old._metadata["1.1"] = {"version": 1}
    dst = model()
    dst.load_state_dict(old)
    np.testing.assert_array_equal(dst[1][1].weight.detach().numpy(), [0.0, 1.0, 2.0])
    plain = OrderedDict(sd)  # a dict without metadata: the version is unknown, as in PyTorch
    with pytest.raises(ValueError, match="instead of None"):
        model().load_state_dict(plain)


def test_a_state_dict_post_hook_gets_the_recorded_metadata():
    seen = []
    m = model()
    m[1][0].register_state_dict_post_hook(lambda module, sd, prefix, local: seen.append((prefix, local)))
    sd = m.state_dict()
    assert seen == [("1.0.", {"version": 2})] and seen[0][1] is sd._metadata["1.0"]


def test_a_snapshot_restores_a_module_that_reads_its_version(tmp_path):
    # the executor stores the model's tensors by name; restoring built a plain dict for
    # load_state_dict, so a _load_from_state_dict that reads local_metadata got version None
    from minigrad_ckpt.snapshot import Snapshot

    src = model()
    with mg.no_grad():
        src[1][1].weight.mul_(5.0)
    Snapshot.from_executor(mg.Executor(src, mg.optim.SGD(src.parameters(), lr=0.1))).save(tmp_path / "s.mgsnap")
    dst = model()
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(dst, mg.optim.SGD(dst.parameters(), lr=0.1)))
    np.testing.assert_array_equal(dst[1][1].weight.detach().numpy(), [0.0, 5.0, 10.0])
