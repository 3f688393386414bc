"""``x.cuda(device)`` and ``model.cuda(device)`` move to a GPU; a CPU (or meta) device there is
PyTorch's RuntimeError "Invalid device, must be cuda device", raised before it looks for a GPU.
The engine moved the tensor to the device named, so ``z.cuda(current_device)`` with
``current_device = "cpu"`` (PyTorch-VAE's MSSIMVAE.sample) stayed on the CPU without a word where
PyTorch stops.  The stand-in devices (``"strict"``), which play a GPU in the tests, are still taken."""
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict")
from minigrad_ckpt.nn.utils.rnn import pack_padded_sequence


@pytest.mark.parametrize("device", ["cpu", "cpu:0", mg.device("cpu"), "meta"])
@pytest.mark.parametrize("move", [
    lambda t, d: t.cuda(d),
    lambda t, d: t.cuda(d, non_blocking=True),
    lambda t, d: mg.nn.Linear(2, 2).cuda(d),
    lambda t, d: pack_padded_sequence(t.reshape(2, 1, 1), [2]).cuda(d),
], ids=["tensor", "tensor-non-blocking", "module", "packed-sequence"])
def test_a_cpu_device_is_refused(device, move):
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        move(mg.ones(2), device)


def test_a_stand_in_gpu_is_still_taken():
    assert mg.ones(2).cuda("strict").device == mg.device("strict")
    assert next(mg.nn.Linear(2, 2).cuda("strict").parameters()).device == mg.device("strict")
