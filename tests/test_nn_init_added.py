"""``nn.init.trunc_normal_``, ``orthogonal_``, ``eye_``, ``dirac_`` and ``nn.Identity``'s arguments against
PyTorch 2.13's meanings. The draws come from the engine's generator (not PyTorch's numbers), so the
random ones are checked by their law and their structure; the deterministic ones by torch's values."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)


def _normal_cdf(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trunc_normal_draws_the_truncated_normal(dtype):
    mg.manual_seed(0)
    t = nn.init.trunc_normal_(mg.empty(200_000, dtype=dtype), mean=1.0, std=1.0, a=0.5, b=3.0)
    v = t.numpy()
    assert t.dtype == dtype and v.min() >= 0.5 and v.max() <= 3.0
    # the truncated normal's mean: mean + std (phi(alpha) - phi(beta)) / (Phi(beta) - Phi(alpha))
    alpha, beta = -0.5, 2.0
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    want = 1.0 + (phi(alpha) - phi(beta)) / (_normal_cdf(beta) - _normal_cdf(alpha))
    assert abs(v.mean() - want) < 0.01  # torch: 100000 draws give 1.446 (want 1.4458)
    mg.manual_seed(0)
    again = nn.init.trunc_normal_(mg.empty(200_000, dtype=dtype), mean=1.0, std=1.0, a=0.5, b=3.0)
    np.testing.assert_array_equal(again.numpy(), v)  # a seed reproduces it


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 2, 2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain(shape, dtype):
    w = nn.init.orthogonal_(mg.empty(*shape, dtype=dtype), gain=2.0)
    flat = w.numpy().reshape(shape[0], -1) / 2.0
    small = min(flat.shape)
    gram = flat @ flat.T if flat.shape[0] == small else flat.T @ flat
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-5 if dtype == "float32" else 1e-12)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nn.init.orthogonal_(mg.empty(3))


def test_eye_and_dirac_are_pytorchs():
    # torch: nn.init.eye_(torch.empty(3, 4)) is the 3 x 4 identity
    assert nn.init.eye_(mg.empty(3, 4)).tolist() == np.eye(3, 4).tolist()
    # torch: nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2)[:, :, 1, 1] == [[1, 0], [0, 1], [1, 0], [0, 1]]
    w = nn.init.dirac_(mg.empty(4, 2, 3, 3), groups=2)
    assert w.numpy()[:, :, 1, 1].tolist() == [[1, 0], [0, 1], [1, 0], [0, 1]] and w.numpy().sum() == 4
    x = mg.randn(1, 3, 5, 5)
    ident = nn.init.dirac_(mg.empty(3, 3, 3, 3))
    np.testing.assert_allclose(F.conv2d(x, ident, padding=1).numpy(), x.numpy(), atol=1e-6)  # passes x through


def test_the_new_init_functions_run_on_the_strict_float32_device():
    mg.manual_seed(0)
    for fill in (lambda w: nn.init.trunc_normal_(w, std=0.02), nn.init.orthogonal_, nn.init.eye_):
        w = fill(mg.empty(5, 4, device="strict-f32"))
        assert str(w.device) == "strict-f32:0" and w.dtype == np.float32
    assert nn.init.dirac_(mg.empty(2, 2, 3, device="strict-f32")).dtype == np.float32


def test_identity_accepts_and_ignores_arguments():
    # torch: nn.Identity(54, unused_argument1=0.1, unused_argument2=False)(x) is x
    x = mg.randn(2)
    assert nn.Identity(54, unused_argument1=0.1, unused_argument2=False)(x) is x


# ------------------------------------------------ PyTorch's keyword names
# torch 2.13: inspect.signature(torch.nn.init.<name>) for each name, the parameters after `tensor`;
# every one of these calls ran there with the keywords written out (torch.nn.init.constant_(tensor=t, val=3.0)).
_INIT_KEYWORDS = {
    "uniform_": dict(a=-0.5, b=0.5), "normal_": dict(mean=1.0, std=0.5),
    "xavier_uniform_": dict(gain=2.0), "xavier_normal_": dict(gain=2.0),
    "kaiming_uniform_": dict(a=0.1, mode="fan_out", nonlinearity="relu"),
    "kaiming_normal_": dict(a=0.1, mode="fan_out", nonlinearity="relu"),
    "trunc_normal_": dict(mean=0.0, std=1.0, a=-1.0, b=1.0), "orthogonal_": dict(gain=1.5),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(_INIT_KEYWORDS))
def test_random_inits_take_tensor_and_generator_by_keyword(name, dtype):
    """``init.<name>(tensor=w, ..., generator=g)``: the draw is g's (repeatable from its seed) and
    leaves the engine's generator alone, as ``torch.nn.init`` does with a ``torch.Generator``."""
    init = getattr(mg.nn.init, name)
    kwargs = _INIT_KEYWORDS[name]
    draws = []
    for _ in range(2):
        state = mg.random.get_rng_state()
        w = init(tensor=mg.empty(3, 4, dtype=dtype), generator=mg.Generator().manual_seed(7), **kwargs)
        assert mg.random.get_rng_state() == state and w.dtype == np.dtype(dtype)
        draws.append(w.numpy())
    np.testing.assert_array_equal(*draws)
    other = init(mg.empty(3, 4, dtype=dtype), generator=mg.Generator().manual_seed(8), **kwargs)
    assert not np.array_equal(other.numpy(), draws[0])
    with pytest.raises(TypeError, match="generator"):
        init(mg.empty(3, 4), generator=7, **kwargs)


def test_deterministic_inits_take_tensor_and_val_by_keyword():
    """torch 2.13: constant_(tensor=t, val=3.0) fills 3; zeros_/ones_/eye_/dirac_(tensor=...) too."""
    assert mg.nn.init.constant_(tensor=mg.empty(2), val=3.0).tolist() == [3.0, 3.0]
    assert mg.nn.init.zeros_(tensor=mg.empty(2)).tolist() == [0.0, 0.0]
    assert mg.nn.init.ones_(tensor=mg.empty(2)).tolist() == [1.0, 1.0]
    assert mg.nn.init.eye_(tensor=mg.empty(2, 2)).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert mg.nn.init.dirac_(tensor=mg.empty(2, 2, 1), groups=2).numpy().sum() == 2.0


def test_clip_grad_takes_pytorchs_foreach_and_it_changes_nothing():
    """torch 2.13: clip_grad_norm_([p], 1.0, foreach=True) with p.grad = [1, 1] returns 1.4142 and
    leaves [0.7071, 0.7071], as foreach=False; clip_grad_value_ takes foreach too."""
    for foreach in (None, True, False):
        p = mg.zeros(2, requires_grad=True)
        p.grad = mg.ones(2)
        total = mg.nn.utils.clip_grad_norm_([p], 1.0, foreach=foreach)
        np.testing.assert_allclose(total.item(), 2 ** 0.5, rtol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), [2 ** -0.5] * 2, rtol=1e-5)
        mg.nn.utils.clip_grad_value_([p], 0.5, foreach=foreach)
        np.testing.assert_allclose(p.grad.numpy(), [0.5, 0.5])
