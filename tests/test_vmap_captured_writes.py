"""``vmap``'s function writing in place into a tensor it closes over: refused where the loop over the
examples would write what torch's batching does not.

``buf = mg.zeros(2); mg.func.vmap(lambda x: buf.add_(x))(xs)`` summed the examples into ``buf`` and
returned ``buf``'s final value stacked once per example (``[[6, 9]] * 3`` for ``xs = arange(6).view(3, 2)``),
silently; torch 2.13 refuses a batched value written into an unbatched tensor ("vmap: inplace
arithmetic(self, *extra_args) is not possible ...", or for ``add_`` "output with shape [2] doesn't match
the broadcast shape [3, 2]").  An unbatched update that reads the old value (``buf.add_(1)``), which
torch makes once for the batch, would be made once per example: refused too.  Writes that set a value
(``fill_``, ``buf[i] = 7``) and writes into the function's own tensors give torch's answers.

Expected answers: ``tests/data/make_torch_seams.py`` (torch 2.13 on the same programs).
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES, programs, torch_answers

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

WRITES = programs("vmap_write_programs")
TORCH = torch_answers("vmap_writes")


def _flat(v):
    return [x for u in v for x in _flat(u)] if isinstance(v, list) else [v]


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", sorted(WRITES.PROGRAMS))
def test_writes_under_vmap_give_torchs_answer_or_its_refusal(name, device, dtype):
    dtype_name = "float64" if dtype == mg.float64 else "float32"
    got, want = WRITES.run(mg, name, device, dtype_name), TORCH[dtype_name][name]
    if "error" in want:
        assert "error" in got, f"the engine answered {got}; torch 2.13 refuses: {want['message']}"
        assert got["error"] == want["error"]
        if "inplace arithmetic" in want["message"]:
            assert "inplace arithmetic(self, *extra_args) is not possible" in got["message"]
        return
    assert "error" not in got, got
    tol = 1e-12 if dtype == mg.float64 else 1e-6
    for part in ("out", "buffer"):
        np.testing.assert_allclose(_flat(got[part]), _flat(want[part]), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(WRITES.REPEATED))
def test_an_update_torch_makes_once_for_the_batch_is_refused(name):
    """torch writes an unbatched ``buf.add_(1)`` once; the loop would write it once per example."""
    assert "error" not in TORCH["float64"][name]  # torch answers (once for the batch) ...
    got = WRITES.run(mg, name)
    assert got.get("error") == "RuntimeError" and "once per example" in got["message"]  # ... the loop refuses


def test_a_refused_write_leaves_the_buffer_as_it_was_and_vmap_usable():
    buf = mg.tensor([1.0, 2.0])
    xs = mg.tensor([[1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(RuntimeError, match="inplace arithmetic"):
        mg.func.vmap(lambda x: buf.add_(x))(xs)
    assert buf.tolist() == [1.0, 2.0]
    buf.add_(xs[0])  # outside vmap: a plain write again
    assert buf.tolist() == [2.0, 3.0]
    np.testing.assert_array_equal(mg.func.vmap(lambda x: x.clone().add_(buf))(xs).numpy(), [[3, 4], [4, 5]])


def test_nested_vmap_refuses_a_value_batched_at_the_outer_level():
    """The inner vmap maps over ``buf``; the outer closes over it, and ``x`` depends on its example."""
    buf = mg.zeros(4, 2)
    xs = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(RuntimeError, match="inplace arithmetic"):
        mg.func.vmap(lambda x: mg.func.vmap(lambda b: b.add_(x))(buf))(xs)
    assert not buf.any()


def test_setting_data_of_a_captured_tensor_to_a_batched_value_is_refused():
    """``buf.data = x * 1`` under vmap: the engine left ``buf`` holding the last example's values;
    torch 2.13 refuses ("mutating directly with `.data` under vmap transform is not allowed.")."""
    buf = mg.zeros(2)
    xs = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(RuntimeError, match="mutating directly with `.data` under vmap transform is not allowed"):
        mg.func.vmap(lambda x: (setattr(buf, "data", x * 1), x)[1])(xs)
    assert buf.tolist() == [0.0, 0.0]

    def own(x):  # the function's own tensor: each example's, set per example (torch's vmap refuses it)
        y = x * 1
        y.data = x * 2
        return y

    np.testing.assert_array_equal(mg.func.vmap(own)(xs).numpy(), [[2, 4], [6, 8]])


def test_spectral_norm_in_training_mode_is_refused_not_iterated_once_per_example():
    """spectral_norm's power iteration writes its ``u``/``v`` buffers in each forward.  The loop made
    one iteration per example, so examples 2.. used other weights than torch 2.13's one iteration
    for the batch (``[-0.3068, -0.03068]`` for ``[-0.42674, -0.04267]``), silently; now refused (the
    update is made in the call, so it counts as the example's).  In evaluation mode it works."""
    lin = mg.nn.Linear(2, 2).double()
    with mg.no_grad():
        lin.weight.copy_(mg.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=mg.float64))
        lin.bias.zero_()
    sn = mg.nn.utils.spectral_norm(lin)
    with mg.no_grad():
        sn.weight_u.copy_(mg.tensor([0.6, 0.8], dtype=mg.float64))
        sn.weight_v.copy_(mg.tensor([0.8, 0.6], dtype=mg.float64))
    x = mg.tensor(np.linspace(-1, 1, 8).reshape(4, 2), dtype=mg.float64)
    with pytest.raises(RuntimeError, match="inplace arithmetic"):
        mg.func.vmap(sn)(x)
    np.testing.assert_array_equal(sn.weight_u.numpy(), [0.6, 0.8])
    sn.eval()
    np.testing.assert_allclose(mg.func.vmap(sn)(x).detach().numpy(), sn(x).detach().numpy(), rtol=1e-12)
