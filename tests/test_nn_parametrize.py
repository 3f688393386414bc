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
    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        parametrize.register_parametrization(m2, "weight", mg.nn.Flatten(0))
    with pytest.raises(ValueError, match="sequence of tensors"):
        parametrize.remove_parametrizations(P.weight_norm(_linear()), "weight", leave_parametrized=False)


# torch: m = Linear(3, 3, bias=False) with weight _sines((3, 3), 0.5) + eye(3) (full rank: a rank-deficient
# start has a zero in R's diagonal, whose sign LAPACK's rounding decides); P.orthogonal(m, orthogonal_map=map);
# m.weight (the QR-orthogonalized start, the same for every map); then original.copy_(_sines((3, 3), 0.9) * 0.5)
# (householder: its diagonal set to [-1, 1, -1], which that map reads through .int()), y = m(X),
# (y ** 2 + y).sum().backward(): y and original.grad
ORTHO_START = [[0.7955862659574633, -0.5769673907727185, -0.18480022566214985],
               [0.5980453228580475, 0.6991481638262806, 0.39183368515985706],
               [-0.09687252049716721, -0.42225640907304346, 0.9012853265028032]]
ORTHO_TORCH = {
    "matrix_exp": ([[0.3357525517671465, 0.8842825695114861, -0.7371121391799189],
                    [-0.14305085662326328, -1.2237928559523337, 0.38447946945771727]],
                   [[0.0, 0.0, 0.0], [0.2538029854606183, 0.0, 0.0], [0.5791656581994646, -0.42364221988098905, 0.0]]),
    "cayley": ([[0.3372248124744203, 0.8847836319342763, -0.7358376825082866],
                [-0.14337312301887567, -1.2240352986131113, 0.3835866259921372]],
               [[0.0, 0.0, 0.0], [0.25461244984154163, 0.0, 0.0], [0.5659993071962668, -0.41502945554425613, 0.0]]),
    "householder": ([[0.9607364015552254, -0.1989284353454977, -0.6895163441312264],
                     [-1.239009641568972, 0.26348836395368697, 0.24776189064350299]],
                    [[0.0, 0.0, 0.0], [-0.6911186426550487, 0.0, 0.0], [0.5283688575928371, 0.9592669038469265, 0.0]]),
}


@pytest.mark.parametrize("orthogonal_map", list(ORTHO_TORCH))
def test_orthogonal_maps_match_torch(orthogonal_map):
    m = mg.nn.Linear(3, 3, bias=False, dtype=mg.float64)
    with mg.no_grad():
        m.weight.copy_(_t(_sines((3, 3), 0.5) + np.eye(3)))
    P.orthogonal(m, orthogonal_map=orthogonal_map)
    assert list(m.state_dict()) == ["parametrizations.weight.original", "parametrizations.weight.0.base"]
    np.testing.assert_allclose(m.weight.numpy(), ORTHO_START, rtol=1e-12, atol=1e-14)
    start = _sines((3, 3), 0.9) * 0.5
    if orthogonal_map == "householder":
        np.fill_diagonal(start, [-1.0, 1.0, -1.0])
    with mg.no_grad():
        m.parametrizations.weight.original.copy_(_t(start))
    y = m(_t(X))
    (y ** 2 + y).sum().backward()
    expected_y, expected_grad = ORTHO_TORCH[orthogonal_map]
    np.testing.assert_allclose(y.numpy(), expected_y, rtol=1e-12)
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(), expected_grad, rtol=1e-10, atol=1e-14)
    w = m.weight.numpy()
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=1e-13)


def test_orthogonal_rectangular_assignment_and_refusals():
    for out_features, in_features in ((4, 3), (3, 5)):  # tall: householder; wide: through its transpose
        m = P.orthogonal(mg.nn.Linear(in_features, out_features, dtype=mg.float64))
        w = m.weight.numpy()
        small = w.T @ w if out_features > in_features else w @ w.T
        np.testing.assert_allclose(small, np.eye(min(w.shape)), atol=1e-13)
        y = m(_t(np.ones((2, in_features))))
        (y ** 2).sum().backward()
        assert m.parametrizations.weight.original.grad.shape == (out_features, in_features)
    m = P.orthogonal(mg.nn.Linear(3, 3, bias=False, dtype=mg.float64))
    m.weight = _t(ORTHO_START)  # an orthogonal matrix is stored as given (torch: base = Q, original = -I)
    np.testing.assert_allclose(m.weight.numpy(), ORTHO_START, rtol=1e-12)
    np.testing.assert_array_equal(m.parametrizations.weight.original.numpy(), -np.eye(3))
    assert gradcheck(lambda o: mg.func.functional_call(m, {"parametrizations.weight.original": o}, (_t(X),)),
                     (_t(_sines((3, 3), 0.9) * 0.5, grad=True),))
    with pytest.raises(ValueError, match="matrix"):
        P.orthogonal(mg.nn.Linear(2, 2), name="bias")  # 1-D: no matrix
    with pytest.raises(NotImplementedError):
        P.orthogonal(mg.nn.Linear(2, 2), use_trivialization=False)


def test_parametrized_weight_norm_loads_a_hook_based_state_dict():
    # torch registers the same conversion (weight_g/weight_v -> parametrizations.weight.original0/1)
    old = mg.nn.Sequential(mg.nn.utils.weight_norm(_linear()))
    new = mg.nn.Sequential(P.weight_norm(mg.nn.Linear(3, 4, dtype=mg.float64)))
    assert not new.load_state_dict(old.state_dict()).missing_keys
    np.testing.assert_allclose(new(_t(X)).numpy(), Y_LINEAR, rtol=1e-12)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_reparameterizations_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    from minigrad_ckpt.nn.utils import get_total_norm, spectral_norm, weight_norm

    makers = [lambda: weight_norm(mg.nn.Linear(3, 4)), lambda: spectral_norm(mg.nn.Linear(3, 4)),
              lambda: P.weight_norm(mg.nn.Linear(3, 4)), lambda: P.spectral_norm(mg.nn.Linear(3, 4)),
              lambda: P.orthogonal(mg.nn.Linear(3, 3)), lambda: P.orthogonal(mg.nn.Linear(3, 4))]
    for make in makers:  # the householder map multiplied float32 by int32 signs: a float64 weight (before)
        mg.manual_seed(0)
        m = make().to(device)
        y = m(mg.ones(2, m.in_features, device=device))
        y.sum().backward()
        assert y.dtype == mg.float32 and str(y.device).startswith(device)
        assert get_total_norm([p.grad for p in m.parameters()]).dtype == mg.float32
