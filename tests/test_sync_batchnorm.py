"""``nn.SyncBatchNorm`` in one process, and ``convert_sync_batchnorm``: PyTorch's names and meanings.

Without a process group (or in a world of one) it is plain batch norm, as PyTorch's; its own refusals
are PyTorch's words (torch 2.13).  Synchronization across ranks: tests/test_sync_batchnorm_distributed.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def _copied(src, dst):
    dst.load_state_dict(src.state_dict())
    return dst


@pytest.mark.parametrize("plain, shape", [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (6, 3, 4)),
                                          (nn.BatchNorm2d, (4, 3, 2, 2)), (nn.BatchNorm3d, (2, 3, 2, 1, 2))])
def test_without_a_process_group_it_is_plain_batch_norm_bitwise(plain, shape):
    rng = np.random.default_rng(0)
    ref = plain(3, momentum=None)
    with mg.no_grad():
        ref.weight.copy_(mg.tensor(rng.uniform(0.5, 1.5, 3), dtype="float32"))
    sync = _copied(ref, nn.SyncBatchNorm(3, momentum=None))
    for _ in range(2):
        x = rng.standard_normal(shape).astype("float32")
        xr, xs = mg.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
        out_ref, out = ref(xr), sync(xs)
        (out_ref * out_ref).sum().backward()
        (out * out).sum().backward()
        assert np.array_equal(out.numpy(), out_ref.numpy()) and np.array_equal(xs.grad.numpy(), xr.grad.numpy())
    for a, b in zip((*sync.parameters(), *sync.buffers()), (*ref.parameters(), *ref.buffers())):
        assert np.array_equal(a.numpy(), b.numpy())
    for p, q in zip(sync.parameters(), ref.parameters()):
        assert np.array_equal(p.grad.numpy(), q.grad.numpy())
    sync.eval(), ref.eval()
    x = mg.tensor(rng.standard_normal(shape).astype("float32"))
    assert np.array_equal(sync(x).numpy(), ref(x).numpy())


def test_forward_mode_works_where_it_does_not_synchronize():
    # (as PyTorch's, whose fallback is F.batch_norm; its synchronizing Function has no jvp)
    m = nn.SyncBatchNorm(3, dtype="float64")
    x, t = mg.randn(5, 3, dtype="float64"), mg.randn(5, 3, dtype="float64")
    _, tangent = mg.func.jvp(m, (x,), (t,))
    ref = _copied(m, nn.BatchNorm1d(3, dtype="float64"))
    assert np.allclose(tangent.numpy(), mg.func.jvp(ref, (x,), (t,))[1].numpy(), rtol=0, atol=1e-12)


def test_refusals_are_pytorchs():
    m = nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match=r"^expected at least 2D input \(got 1D input\)$"):
        m(mg.randn(3))
    with pytest.raises(ValueError, match="^SyncBatchNorm number of input channels should be non-zero$"):
        m(mg.randn(4, 0, 2))
    with pytest.raises(RuntimeError, match="running_mean should contain 5 elements not 3"):
        m(mg.randn(4, 5))
    assert int(m.num_batches_tracked) == 0  # (PyTorch's counts the refused call: it checks after counting)
    assert m(mg.randn(2, 3, 1, 1, 1, 2)).shape == (2, 3, 1, 1, 1, 2)  # any number of dims from 2


def test_repr_state_dict_and_pytorchs_address():
    m = nn.SyncBatchNorm(4, bias=False, process_group=None)
    assert repr(m) == "SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=False, track_running_stats=True)"
    assert list(m.state_dict()) == list(nn.BatchNorm2d(4, bias=False).state_dict())
    assert m.process_group is None
    assert nn.modules.batchnorm.SyncBatchNorm is nn.SyncBatchNorm
    assert isinstance(m, nn.modules.batchnorm._BatchNorm)
    m.load_state_dict(nn.BatchNorm2d(4, bias=False).state_dict())  # a BatchNorm checkpoint loads

    class BatchNormAct2d(nn.SyncBatchNorm):  # timm's layers/norm_act.py subclasses it at import
        def forward(self, x):
            return nn.functional.relu(super().forward(x))

    assert (BatchNormAct2d(4)(mg.randn(3, 4, 2, 2)).numpy() >= 0).all()


def test_convert_replaces_every_batch_norm_keeping_its_tensors_and_flags():
    net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.BatchNorm1d(3, affine=False), nn.BatchNorm2d(3, bias=False)),
                        nn.BatchNorm3d(3, momentum=None, track_running_stats=False).eval())
    net[1][1].weight.requires_grad_(False)
    net[1][1].qconfig = "kept"
    before = dict(net.named_parameters()), dict(net.named_buffers()), list(net.state_dict())
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group=None)
    assert out is net  # changed in place, as PyTorch's
    assert [type(m).__name__ for m in net.modules()] == ["Sequential", "Linear", "Sequential", "SyncBatchNorm",
                                                        "SyncBatchNorm", "SyncBatchNorm"]
    assert repr(net[1][0]) == ("SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                               "track_running_stats=True)")
    # the same tensors (the optimizer's references stay good), requires_grad and training kept
    assert all(p is before[0][k] for k, p in net.named_parameters()) and len(before[0]) == 5
    assert all(b is before[1][k] for k, b in net.named_buffers()) and len(before[1]) == 6
    assert list(net.state_dict()) == before[2]
    assert not net[1][1].weight.requires_grad and net[1][1].bias is None and net[1][1].qconfig == "kept"
    assert net[1][0].training and not net[2].training and net[2].momentum is None
    single = nn.BatchNorm2d(3)
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(single)
    assert type(converted) is nn.SyncBatchNorm and converted.weight is single.weight


def test_a_checkpointed_segment_replays_bitwise_and_counts_the_batch_once():
    def net():
        mg.manual_seed(0)
        return nn.Sequential(nn.Linear(4, 3), nn.SyncBatchNorm(3), nn.Tanh()).double()

    plain, ckpt = net(), net()
    x = mg.randn(6, 4, dtype="float64")
    plain(x).pow(2).sum().backward()
    mg.checkpoint.checkpoint(ckpt, x, determinism_check="value", use_reentrant=False).pow(2).sum().backward()
    for a, b in zip((*plain.parameters(), *plain.buffers()), (*ckpt.parameters(), *ckpt.buffers())):
        assert np.array_equal(a.numpy(), b.numpy())
    for p, q in zip(plain.parameters(), ckpt.parameters()):
        assert np.array_equal(p.grad.numpy(), q.grad.numpy())
    assert int(ckpt[1].num_batches_tracked) == 1  # (PyTorch's checkpoint re-runs the module: 2)


def test_one_value_in_the_whole_group_makes_an_infinite_running_variance_as_pytorchs():
    """A group holding one value per channel (a rank of 1 row beside empty ones): PyTorch's kernel's
    ``var * n / (n - 1)`` is inf (NaN at a zero variance), where Python's division raised."""
    import warnings

    from minigrad_ckpt.nn.sync_batchnorm import unbiased

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = unbiased(mg.tensor([0.0, 2.0]), 1.0).numpy()
    assert np.isnan(out[0]) and out[1] == np.inf
    assert unbiased(mg.tensor([1.0]), 3.0).item() == 1.5
