"""``mg.nn.utils.parametrize`` (``register_parametrization``, ``remove_parametrizations``, ``cached``,
``is_parametrized``) and ``mg.nn.utils.parametrizations`` (``weight_norm``, ``spectral_norm``): a
ported program using PyTorch's recommended forms got an AttributeError.

Expected values: torch 2.13 in float64 (torch.set_default_dtype(torch.float64)), printed with
``.tolist()``; each comment names the expression. Inputs are sines/cosines rebuilt here."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn.utils import parametrizations as P
from minigrad_ckpt.nn.utils import parametrize
from minigrad_ckpt.testing import gradcheck


def _t(values, dtype=mg.float64, grad=False):
    return mg.tensor(values, dtype=dtype, requires_grad=grad)


def _sines(shape, k=0.7):
    return np.sin(np.arange(int(np.prod(shape))) * k + 0.3).reshape(shape)


def _unit(n, k):
    u = np.cos(np.arange(n) * k + 0.1)
    return u / np.linalg.norm(u)


X = np.cos(np.arange(6) * 0.9).reshape(2, 3)


def _linear(dtype=mg.float64):
    m = mg.nn.Linear(3, 4, dtype=dtype)
    with mg.no_grad():
        m.weight.copy_(_t(_sines((4, 3)), dtype))
        m.bias.copy_(_t([0.1, -0.2, 0.3, 0.0], dtype))
    return m


# torch: the same Linear, P.weight_norm(m); y = m(X); (y * y).sum().backward() -- the numbers of the
# hook-based weight_norm (same formula): y, and the gradients of original0 (g) and original1 (v)
Y_LINEAR = [[0.6932786366602368, 0.6403255292836627, -1.141748776769577, 0.6153969782437986],
            [-1.1308065504598068, -0.7189781802290378, 2.0548147757817112, -1.2528446274663008]]
G_GRAD = [2.7038864367776476, 1.9975534200326288, 7.669221133143128, 2.9051054899243822]
V_GRAD = [[2.832101879195781, 1.1840795630746077, -1.8487213717109823],
          [1.1017387321341887, 1.9945239501879757, 1.35181320282926],
          [-0.5251688738266591, -0.15783985626975497, 1.7460644333123925],
          [2.821362475417104, 1.170144090928628, -1.8942627761894657]]


def test_parametrized_weight_norm_keys_values_gradients():
    m = P.weight_norm(_linear())
    # torch: list(m.state_dict()), type(m).__name__
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert type(m).__name__ == "ParametrizedLinear" and parametrize.type_before_parametrizations(m) is mg.nn.Linear
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias") and not parametrize.is_parametrized(_linear())
    y = m(_t(X))
    (y * y).sum().backward()
    np.testing.assert_allclose(y.numpy(), Y_LINEAR, rtol=1e-12)
    orig = m.parametrizations.weight
    np.testing.assert_allclose(orig.original0.grad.numpy().ravel(), G_GRAD, rtol=1e-11)
    np.testing.assert_allclose(orig.original1.grad.numpy(), V_GRAD, rtol=1e-10)
    # a torch state dict (these keys) loads into a fresh parametrized module
    fresh = P.weight_norm(mg.nn.Linear(3, 4, dtype=mg.float64))
    fresh.load_state_dict({k: v.detach().clone() for k, v in m.state_dict().items()})
    np.testing.assert_allclose(fresh(_t(X)).numpy(), Y_LINEAR, rtol=1e-12)
    # mg.func.grad through functional_call with the dotted names, and a checkpointed call
    names = ("parametrizations.weight.original0", "parametrizations.weight.original1")

    def loss(p):
        out = mg.func.functional_call(m, p, (_t(X),))
        return (out * out).sum()

    grads = mg.func.grad(loss)({n: m.get_parameter(n).detach() for n in names})
    np.testing.assert_allclose(grads[names[1]].numpy(), V_GRAD, rtol=1e-10)
    m.zero_grad()
    out = mg.checkpoint.checkpoint(m, _t(X), use_reentrant=False)
    (out * out).sum().backward()
    np.testing.assert_allclose(orig.original0.grad.numpy().ravel(), G_GRAD, rtol=1e-11)
    assert gradcheck(lambda g, v: mg.func.functional_call(m, {names[0]: g, names[1]: v}, (_t(X),)),
                     (_t(orig.original0.numpy(), grad=True), _t(orig.original1.numpy(), grad=True)))


def test_parametrized_spectral_norm_matches_torch():
    m = P.spectral_norm(_linear())
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original",
                                    "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    sn = m.parametrizations.weight[0]
    with mg.no_grad():
        sn._u.copy_(_t(_unit(4, 1.3)))
        sn._v.copy_(_t(_unit(3, 0.6)))
    x = _t(X, grad=True)
    y = m(x)
    (y * y).sum().backward()
    # torch: P.spectral_norm(m); _u, _v set as above; y = m(x); (y * y).sum().backward()
    np.testing.assert_allclose(y.numpy(), [
        [0.37906717490864505, 0.19527341281142901, -0.3781716603281275, 0.2894712291219167],
        [-0.47894838221282243, -0.44411762980551983, 1.1254320511557558, -0.5893146814701873]], rtol=1e-12)
    np.testing.assert_allclose(sn._u.numpy(), [0.4793850537963013, 0.2152899086416446, -0.696761597271088,
                                               0.48822484779252245], rtol=1e-12)
    np.testing.assert_allclose(sn._v.numpy(), [0.5269663131659966, 0.678808227463584, 0.5113960257139119], rtol=1e-12)
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(), [
        [0.24464345520574393, -0.04322988414234641, -0.4900215504346267],
        [0.32820991683054823, 0.18843921305413563, -0.18000052138593678],
        [-0.5581603184328541, -0.19830383034622157, 0.5901550063345213],
        [0.24464714525314057, -0.01485096396958585, -0.45827770263964174]], rtol=1e-10)
    m.eval()  # torch: m.eval(); m.weight -- no refinement in eval, the weight is W / sigma
    u_before = sn._u.numpy().copy()
    np.testing.assert_allclose(m.weight.numpy()[0], [0.13900717825548214, 0.3958122136671802, 0.4664605802547606],
                               rtol=1e-12)
    np.testing.assert_array_equal(sn._u.numpy(), u_before)
    parametrize.remove_parametrizations(m, "weight")
    assert list(m.state_dict()) == ["bias", "weight"] and type(m) is mg.nn.Linear
    np.testing.assert_allclose(m.weight.numpy()[0], [0.13900717825548214, 0.3958122136671802, 0.4664605802547606],
                               rtol=1e-12)
    # 15 power steps at creation: sigma already close to the largest singular value
    fresh = P.spectral_norm(_linear()).eval()
    assert abs(np.linalg.norm(fresh.weight.numpy(), 2) - 1) < 1e-6
    assert P.spectral_norm(mg.nn.Linear(3, 1, dtype=mg.float64)).weight.shape == (1, 3)


class _Symmetric(mg.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class _Double(mg.nn.Module):
    def forward(self, x):
        return 2 * x

    def right_inverse(self, a):
        return a / 2


def test_register_parametrization_chain_assign_remove_and_cache():
    m = mg.nn.Linear(3, 3, bias=False, dtype=mg.float64)
    with mg.no_grad():
        m.weight.copy_(_t(_sines((3, 3), 0.5)))
    parametrize.register_parametrization(m, "weight", _Symmetric())
    parametrize.register_parametrization(m, "weight", _Double())
    # torch: register Symmetric then Double (forward X.triu() + X.triu(1).mT, then 2 * X); m.weight
    np.testing.assert_allclose(m.weight.numpy(), [[0.5910404133226791, 1.4347121817990456, 1.927116370834386],
                                                  [1.4347121817990456, 1.4914104243534405, 0.6699763003118102],
                                                  [1.927116370834386, 0.6699763003118102, -1.8323318734989098]],
                               rtol=1e-12)
    y = m(_t(X))
    (y ** 2).sum().backward()
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(), [
        [12.234166151504622, 29.463470477378994, 19.044129847929554], [0.0, 15.450652978148376, 14.213837267089822],
        [0.0, 0.0, -0.8582607513337248]], rtol=1e-12)
    with parametrize.cached():  # one computation for every read inside
        assert m.weight is m.weight
    assert m.weight is not m.weight
    m2 = mg.nn.Linear(3, 3, bias=False, dtype=mg.float64)
    original = m2.weight
    parametrize.register_parametrization(m2, "weight", _Double())
    assert m2.parametrizations.weight.original is original  # the same object: an optimizer's stays valid
    m2.weight = mg.eye(3, dtype=mg.float64)  # torch: stored as right_inverse(eye) == eye / 2
    np.testing.assert_allclose(m2.parametrizations.weight.original.numpy(), np.eye(3) / 2)
    parametrize.remove_parametrizations(m2, "weight", leave_parametrized=False)
    np.testing.assert_allclose(m2.weight.numpy(), np.eye(3) / 2)  # torch: the original kept
    assert isinstance(m2.weight, mg.nn.Parameter) and type(m2) is mg.nn.Linear
    with pytest.raises(ValueError, match="does not have a parameter"):
        parametrize.register_parametrization(m2, "nothing", _Double())
    with pytest.raises(ValueError, match="shape or dtype"):
        parametrize.register_parametrization(m2, "weight", mg.nn.Flatten(0))
    with pytest.raises(ValueError, match="sequence of tensors"):
        parametrize.remove_parametrizations(P.weight_norm(_linear()), "weight", leave_parametrized=False)
