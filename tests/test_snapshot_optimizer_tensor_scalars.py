"""A 0-d tensor in an optimizer's state under a key the optimizer does not declare one of its scalars
(``Optimizer.scalar_state_keys``) comes back from a snapshot as a 0-d tensor of its dtype, and the run
goes on bit for bit.  The header keeps it as a number, as it keeps the step count; before, the restore
gave that number back as a Python float: a hand-written optimizer's ``state["scale"] = mg.tensor(1.0)``
then failed its next ``state["scale"].mul_(0.9)`` (``AttributeError: 'float' object has no attribute
'mul_'``), where PyTorch's ``state_dict``/``load_state_dict`` round trip keeps the tensor.  (LBFGS's
``H_diag`` and a first step's ``t`` are such tensors too.)  Entries under keys that are not parameters
(``state["global_step"] = mg.tensor(0.0)``) came back as numbers and lists; they keep their tensors now.
"""

from __future__ import annotations

import pytest
from optim_cases import assert_resumes_bit_for_bit

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.optim import Optimizer
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

pytestmark = pytest.mark.msgpack


class Scaled(Optimizer):
    """SGD whose step shrinks by 0.9 each time: its scale a 0-d tensor of the parameter's dtype, its
    count a 0-d int64 tensor, written in place as a PyTorch user writes them."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr))

    def step(self, closure=None):
        with mg.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    st = self.state[p]
                    if not st:
                        st["scale"] = mg.tensor(1.0, dtype=p.dtype, device=p.device)
                        st["count"] = mg.tensor(0, dtype=mg.int64)
                    st["scale"].mul_(0.9)
                    st["count"].add_(1)
                    p.sub_(group["lr"] * st["scale"] * p.grad)


def _train(model, opt, ex, n):
    x = mg.linspace(-1, 1, 6).reshape(3, 2).to(model.weight.device).to(model.weight.dtype)
    out = []
    for _ in range(n):
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()
        ex.step()
        out.append(model.weight.detach().cpu().numpy().tobytes())
    return out


def _scaled(device, dtype):
    mg.manual_seed(0)
    model = nn.Linear(2, 1).to(device).to(dtype)
    opt = Scaled(model.parameters())
    return model, opt, mg.Executor(model, opt)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_a_hand_written_optimizers_0d_tensors_resume_bit_for_bit(tmp_path, device, dtype):
    def build():
        return _scaled(device, dtype)

    def restored(model, opt, ex):
        st = opt.state[model.weight]
        assert isinstance(st["scale"], mg.Tensor) and st["scale"].dtype == dtype and st["scale"].ndim == 0
        assert str(st["scale"].device) == str(model.weight.device)
        # (PyTorch's load_state_dict casts every state tensor but the step to a floating parameter's dtype)
        assert isinstance(st["count"], mg.Tensor) and st["count"].dtype == dtype and st["count"].item() == 2
    assert_resumes_bit_for_bit(tmp_path, build, _train, restored=restored)


def test_the_header_names_them_and_only_them():
    model = nn.Linear(2, 1)
    opt = Scaled(model.parameters())
    _train(model, opt, mg.Executor(model, opt), 1)
    saved = mg.Executor(model, opt).optimizer_state()
    assert saved["tensor_scalars"] == {"weight": {"scale": "float32", "count": "int64"},
                                       "bias": {"scale": "float32", "count": "int64"}}
    adam = mg.optim.Adam(model.parameters())
    _train(model, adam, mg.Executor(model, adam), 1)
    assert "tensor_scalars" not in mg.Executor(model, adam).optimizer_state()  # (its step is a declared scalar)


@pytest.mark.parametrize("bad", [{"weight": {"scale": "object"}}, {"weight": {"nothing": "float32"}},
                                 {"weight": ["scale"]}, {"elsewhere": {"scale": "float32"}}, ["weight"]])
def test_a_malformed_entry_is_refused(bad):
    model = nn.Linear(2, 1)
    opt = Scaled(model.parameters())
    ex = mg.Executor(model, opt)
    _train(model, opt, ex, 1)
    saved = {**ex.optimizer_state(), "tensor_scalars": bad}
    tensors = {k: v.numpy() for k, v in ex.tensors.items()} if ex.tensors else {}
    with pytest.raises(ValueError, match="tensor scalar"):
        ex.optimizer_state_dict_from(saved, tensors)


def test_entries_not_of_a_parameter_keep_their_tensors(tmp_path):
    # a hand-written optimizer's count under its own key (PyTorch's state_dict keeps it as it is, a tensor)
    def build():
        model, opt, ex = _scaled("cpu", mg.float64)
        opt.state["global_step"] = mg.tensor(0.0)
        opt.state["history"] = {"seen": mg.tensor([1.0, 2.0]), 3: "int key"}
        return model, opt, ex

    def train(model, opt, ex, n):
        out = _train(model, opt, ex, n)
        opt.state["global_step"].add_(n)
        return out + [opt.state["global_step"].item()]

    def restored(model, opt, ex):
        assert list(opt.state)[:2] == ["global_step", "history"]
        assert isinstance(opt.state["global_step"], mg.Tensor) and opt.state["global_step"].item() == 2
        history = opt.state["history"]
        assert history[3] == "int key" and history["seen"].tolist() == [1.0, 2.0]
    assert_resumes_bit_for_bit(tmp_path, build, train, restored=restored)
