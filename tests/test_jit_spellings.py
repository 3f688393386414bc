"""``mg.jit``, ``mg._assert`` / ``mg._check`` and ``mg.nn.parameter``: the spellings model libraries
written for PyTorch carry, so that their code runs unchanged.

torchvision's models ask ``torch.jit.is_scripting()`` in ``forward``, mark helpers
``@torch.jit.unused`` and ``@torch.jit._overload_method``, check shapes with ``torch._assert``, and
build parameters as ``nn.parameter.Parameter``; each was an AttributeError here. The module below
is written the way torchvision's DenseNet layer and ViT encoder are.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as torch  # the rename a ported program makes
from minigrad_ckpt import nn
from minigrad_ckpt.utils import checkpoint as cp


class DenseLayer(nn.Module):
    def __init__(self, features: int, memory_efficient: bool) -> None:
        super().__init__()
        self.norm = nn.BatchNorm1d(features)
        self.fc = nn.Linear(features, features)
        self.memory_efficient = memory_efficient
        self.scale = nn.parameter.Parameter(torch.ones(features))

    def bn_function(self, inputs: list[torch.Tensor]) -> torch.Tensor:
        return self.fc(torch.relu(self.norm(torch.cat(inputs, 1)[:, : self.fc.in_features])))

    @torch.jit.unused
    def call_checkpoint_bottleneck(self, inputs: list[torch.Tensor]) -> torch.Tensor:
        return cp.checkpoint(lambda *xs: self.bn_function(list(xs)), *inputs, use_reentrant=False)

    @torch.jit._overload_method  # noqa: F811
    def forward(self, input: list[torch.Tensor]) -> torch.Tensor:  # noqa: A002
        pass

    @torch.jit._overload_method  # noqa: F811
    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002, F811
        pass

    def forward(self, input):  # noqa: A002, F811
        torch._assert(input.dim() == 2, f"Expected (batch, features) got {input.shape}")
        prev = [input] if isinstance(input, torch.Tensor) else input
        if self.memory_efficient and not torch.jit.is_scripting() and not torch.jit.is_tracing():
            out = self.call_checkpoint_bottleneck(prev)
        else:
            out = self.bn_function(prev)
        return out * self.scale


@pytest.mark.parametrize("memory_efficient", [False, True])
def test_a_torchvision_style_layer_runs_and_checkpointing_changes_nothing(memory_efficient):
    torch.manual_seed(0)
    ref = DenseLayer(4, False)
    layer = DenseLayer(4, memory_efficient)
    layer.load_state_dict(ref.state_dict())
    x = torch.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=torch.float32, requires_grad=True)
    for m in (ref, layer):
        m(x).square().sum().backward()
    for p, q in zip(ref.parameters(), layer.parameters()):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    with pytest.raises(AssertionError, match="Expected"):
        layer(torch.ones(3))


def test_the_jit_questions_and_markers():
    assert torch.jit.is_scripting() is False and torch.jit.is_tracing() is False

    def f(x):
        return x + 1

    for marker in (torch.jit.unused, torch.jit.export, torch.jit.ignore, torch.jit.ignore(drop=True),
                   torch.jit._overload, torch.jit._overload_method, torch.jit._script_if_tracing):
        assert marker(f) is f
    assert torch.jit.annotate(list[int], []) == []
    layer = nn.Linear(2, 2)
    assert torch.jit.script(layer) is layer and torch.jit.script(f) is f
    assert torch.jit.trace(f, torch.ones(2)) is f
    with pytest.raises(TypeError):
        torch.jit.script(3)
    assert torch.jit.Final[int] is not None


def test_check_is_pytorchs():
    torch._check(True)
    with pytest.raises(RuntimeError, match="bad shape 3"):
        torch._check(False, lambda: f"bad shape {3}")
    with pytest.raises(RuntimeError, match="Expected cond to be True"):
        torch._check(False)
    with pytest.raises(TypeError, match="cond must be a bool"):
        torch._check(torch.tensor(True))
    with pytest.raises(TypeError, match="callable"):
        torch._check(False, "not callable")
    torch._assert(torch.tensor(True), "a one-element tensor is a condition")


def test_nn_parameter_is_pytorchs_module_path():
    import minigrad_ckpt.nn.parameter as parameter

    assert parameter.Parameter is nn.Parameter and nn.parameter.Parameter is nn.Parameter


def test_jit_annotations_are_typings_names():
    # timm's DenseNet writes ``from torch.jit.annotations import List``
    import typing

    from minigrad_ckpt.jit.annotations import BroadcastingList2, Dict, List, Optional, Tuple

    assert List is typing.List and Tuple is typing.Tuple and Optional is typing.Optional and Dict is typing.Dict  # noqa: UP006
    assert BroadcastingList2[int] == typing.List[int]  # noqa: UP006


def _clip_load(model_path, jit=False):
    """openai/CLIP's ``clip.load`` (open_clip's ``load_openai_model`` has the same shape): try the file
    as a TorchScript archive and fall back on ``torch.load`` when that raises ``RuntimeError``."""
    with open(model_path, "rb") as opened_file:
        try:
            model = torch.jit.load(opened_file, map_location="cpu").eval()
            state_dict = None
        except RuntimeError:
            state_dict = torch.load(opened_file, map_location="cpu")
    return state_dict or model.state_dict()


def test_jit_load_of_a_state_dict_file_is_the_runtime_error_loaders_fall_back_on(tmp_path):
    # mg.jit had no ``load``: the AttributeError escaped CLIP's ``except RuntimeError`` fallback, so a
    # state dict saved with mg.save could not be loaded by the ported ``clip.load``.
    path = tmp_path / "RN.pt"
    weights = {"visual.proj": torch.arange(6.0).reshape(2, 3)}
    torch.save(weights, path)
    with pytest.raises(RuntimeError, match="TorchScript"):
        torch.jit.load(str(path))
    loaded = _clip_load(path)
    np.testing.assert_array_equal(loaded["visual.proj"].numpy(), weights["visual.proj"].numpy())
    with open(path, "rb") as f:  # the file object is left where it was, for the fallback to read
        with pytest.raises(RuntimeError):
            torch.jit.load(f)
        assert f.tell() == 0
    with pytest.raises(ValueError, match="does not exist"):  # PyTorch's words and type for a missing path
        torch.jit.load(str(tmp_path / "missing.pt"))


# RWKV-LM's model files (RWKV-v4neo/src/model.py, model_run.py) pick their base class and method marker at
# import; with RWKV_JIT_ON=1 -- ChatRWKV's default -- they are TorchScript's older class API, which mg.jit lacked
# (an AttributeError at ``MyModule = torch.jit.ScriptModule``).
MyModule = torch.jit.ScriptModule
MyFunction = torch.jit.script_method


class ChannelMix(MyModule):
    """RWKV-4's channel mix, as RWKV-v4neo/src/model.py writes it (sizes made small)."""

    def __init__(self, n_embd: int, dim_ffn: int) -> None:
        super().__init__()
        self.time_shift = nn.ZeroPad2d((0, 0, 1, -1))
        with torch.no_grad():
            self.time_mix_k = nn.Parameter(torch.linspace(0.0, 1.0, n_embd).reshape(1, 1, n_embd))
            self.time_mix_r = nn.Parameter(torch.linspace(1.0, 0.0, n_embd).reshape(1, 1, n_embd))
        self.key = nn.Linear(n_embd, dim_ffn, bias=False)
        self.receptance = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(dim_ffn, n_embd, bias=False)

    @MyFunction
    def forward(self, x):
        xx = self.time_shift(x)
        xk = x * self.time_mix_k + xx * (1 - self.time_mix_k)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        k = torch.relu(self.key(xk)) ** 2
        return torch.sigmoid(self.receptance(xr)) * self.value(k)


def test_a_script_module_with_script_methods_is_the_eager_module():
    # PyTorch 2.13 compiles ChannelMix when it is built and gives, for these weights and input, the
    # eager module's answer (float64, to round-off): out[0, 2] and d(sum out)/d(time_mix_k)[0, 0, 1].
    assert MyFunction(len) is len and torch.jit.script_if_tracing(len) is len
    layer = ChannelMix(3, 4).double()
    assert isinstance(layer, nn.Module) and type(layer).__mro__[1] is torch.jit.ScriptModule
    assert list(layer.state_dict()) == ["time_mix_k", "time_mix_r", "key.weight", "receptance.weight", "value.weight"]
    with torch.no_grad():
        for i, p in enumerate((layer.key.weight, layer.receptance.weight, layer.value.weight)):
            p.copy_(torch.tensor(np.cos(np.arange(p.numel()) + i).reshape(p.shape)))
    x = torch.tensor(np.sin(np.arange(12.0)).reshape(1, 4, 3), requires_grad=True)
    out = layer(x)
    out.sum().backward()
    np.testing.assert_allclose(out[0, 2].detach().numpy(),
                               [-0.02069720118279718, 0.007274492428711675, 8.819584675291138e-05], rtol=1e-12)
    np.testing.assert_allclose(layer.time_mix_k.grad[0, 0, 1].item(), -0.15889978941882038, rtol=1e-12)


def test_assert_async_is_pytorchs():
    """kornia's enhance (adjust_gamma, adjust_brightness, ...) checks its factors with
    torch._assert_async; mg had no such name (AttributeError). Messages: torch 2.13."""
    torch._assert_async(torch.tensor([True]))
    torch._assert_async(torch.tensor(float("nan")))  # nonzero
    with pytest.raises(RuntimeError, match="Expected Tensor with single nonzero value, but got zero"):
        torch._assert_async(torch.tensor(0.0))
    with pytest.raises(RuntimeError, match="^gamma must be non-negative$"):
        torch._assert_async(torch.tensor(False), "gamma must be non-negative")
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        torch._assert_async(torch.tensor([1, 1]))
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        torch._assert_async(torch.tensor([]))
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor, not bool"):
        torch._assert_async(True)


def test_jit_save_refuses_naming_the_state_dict_to_save(tmp_path):
    # yolov5's export: torch.jit.save(torch.jit.trace(model, im), f) -- a traced module here is the
    # module itself, so there is no TorchScript program; the refusal says what to save instead
    model = nn.Linear(2, 2)
    traced = torch.jit.trace(model, torch.zeros(1, 2))
    with pytest.raises(RuntimeError, match=r"mg\.save\(model\.state_dict\(\), path\)"):
        torch.jit.save(traced, str(tmp_path / "m.pt"))
    assert not (tmp_path / "m.pt").exists()
