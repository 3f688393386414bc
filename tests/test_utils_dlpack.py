"""``mg.utils.dlpack``: PyTorch's ``torch.utils.dlpack`` (``from_dlpack``, ``to_dlpack``,
``DLDeviceType``), which libraries import by that path -- kornia's ``kornia/image/image.py`` does at
module level, so without it ``import kornia`` itself failed -- and the DLPack capsule that
``to_dlpack`` hands out, which ``mg.from_dlpack`` takes as ``torch.from_dlpack`` does."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack


def test_the_module_is_offered_where_torch_has_it():
    assert mg.utils.dlpack.from_dlpack is from_dlpack
    assert from_dlpack is mg.from_dlpack
    # torch 2.13: [(m.name, int(m)) for m in torch.utils.dlpack.DLDeviceType][:3]
    assert [(m.name, int(m)) for m in DLDeviceType][:3] == [("kDLCPU", 1), ("kDLCUDA", 2), ("kDLCUDAHost", 3)]


def test_to_dlpack_is_a_capsule_that_from_dlpack_reads_back_sharing_memory():
    t = mg.tensor([1.0, 2.0, 3.0])
    capsule = to_dlpack(t)
    assert type(capsule).__name__ == "PyCapsule"  # torch 2.13: <capsule object "dltensor">
    back = from_dlpack(capsule)
    assert back.dtype == mg.float32 and back.tolist() == [1.0, 2.0, 3.0]
    t.add_(1.0)  # shared memory, as PyTorch's round trip
    assert back.tolist() == [2.0, 3.0, 4.0]


def test_a_capsule_of_another_library_and_an_object_with_dlpack_are_both_taken():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert mg.from_dlpack(a.__dlpack__()).tolist() == a.tolist()
    assert from_dlpack(a).tolist() == a.tolist()
    versioned = a.__dlpack__(max_version=(1, 0))  # "dltensor_versioned": its device lies further in
    assert mg.from_dlpack(versioned).tolist() == a.tolist()


def test_a_capsule_is_read_once_and_other_objects_are_refused():
    capsule = to_dlpack(mg.tensor([1.0]))
    from_dlpack(capsule)
    # torch 2.13: "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed
    # only once, so you might have already constructed a tensor from it once."
    with pytest.raises(RuntimeError, match="consumed only once"):
        from_dlpack(capsule)
    with pytest.raises(TypeError, match="does not support DLPack"):
        from_dlpack(5)


def test_a_capsule_imports_writable_as_torchs_round_trip():
    # torch 2.13: u = torch.from_dlpack(to_dlpack(t)); u[0] = 5 writes t. An unversioned capsule cannot
    # say read-only, and NumPy imports one read-only: add_ was "ValueError: output array is read-only"
    t = mg.tensor([1.0, 2.0, 3.0])
    back = from_dlpack(to_dlpack(t))
    back.add_(1.0)
    back[0] = 9.0
    assert t.tolist() == [9.0, 3.0, 4.0]
    # a capsule of another library's array too (the array stays alive through the import)
    other = np.arange(4.0)
    capsule = other.__dlpack__()  # (unversioned: NumPy's capsule when no max_version is asked)
    del other
    imported = from_dlpack(capsule)
    imported.mul_(2.0)
    assert imported.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_the_tensor_itself_still_exports_read_only_through_the_versioned_protocol():
    t = mg.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="read-only"):
        from_dlpack(t).add_(1.0)
