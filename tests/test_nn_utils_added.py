"""``mg.nn.utils`` names a ported PyTorch program reached for and found missing:
``get_total_norm`` / ``clip_grads_with_norm_`` (PyTorch 2.6's two halves of ``clip_grad_norm_``),
the hook-based ``weight_norm`` / ``remove_weight_norm`` and ``spectral_norm`` /
``remove_spectral_norm``.

Expected values: torch 2.13 on the same float64 inputs, printed with ``.tolist()``; each
comment names the torch expression."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn.utils import clip_grads_with_norm_, get_total_norm

G1 = [[3.0, -4.0], [1.0, 2.0]]
G2 = [0.5, -12.0, 1.5]


def _t(values, dtype=mg.float64, grad=False):
    return mg.tensor(values, dtype=dtype, requires_grad=grad)


# torch: get_total_norm([tensor(G1), tensor(G2)], norm_type).item(), float64
TOTAL_NORMS = {2.0: 13.285330255586423, 1.0: 24.0, math.inf: 12.0, 3.0: 12.234953064733451,
               0.5: 133.22278799506026, 0.0: 2.0, -math.inf: 0.5}


@pytest.mark.parametrize("norm_type", list(TOTAL_NORMS))
def test_get_total_norm_of_every_order_matches_torch(norm_type):
    total = get_total_norm([_t(G1), _t(G2)], norm_type)
    assert total.shape == () and total.dtype == mg.float64
    np.testing.assert_allclose(total.item(), TOTAL_NORMS[norm_type], rtol=1e-13)


def test_get_total_norm_edges():
    # torch: get_total_norm(tensor(G1)).item() == 5.477225575051661; get_total_norm([]) is tensor(0.) float32
    np.testing.assert_allclose(get_total_norm(_t(G1)).item(), 5.477225575051661, rtol=1e-13)
    empty = get_total_norm([])
    assert empty.item() == 0.0 and empty.dtype == mg.float32
    with pytest.raises(RuntimeError, match="non-finite"):
        get_total_norm([_t([math.inf, 1.0])], error_if_nonfinite=True)
    assert math.isinf(get_total_norm([_t([math.inf, 1.0])]).item())
    # outside the tape, as torch's (@_no_grad): the norm of a leaf that wants grad wants none
    assert not get_total_norm([_t([3.0, 4.0], grad=True)]).requires_grad
    f32 = get_total_norm([_t(G1, mg.float32), _t(G2, mg.float32)])
    assert f32.dtype == mg.float32 and abs(f32.item() - 13.285330255586423) < 1e-5


def _params_with_grads(dtype=mg.float64):
    a, b = mg.nn.Parameter(mg.zeros(2, 2, dtype=dtype)), mg.nn.Parameter(mg.zeros(3, dtype=dtype))
    a.grad, b.grad = _t(G1, dtype), _t(G2, dtype)
    return a, b


def test_clip_grads_with_norm_scales_as_torch():
    a, b = _params_with_grads()
    assert clip_grads_with_norm_([a, b], 5.0, get_total_norm([a.grad, b.grad])) is None
    # torch: clip_grads_with_norm_([a, b], 5.0, get_total_norm([a.grad, b.grad])); a.grad, b.grad
    np.testing.assert_allclose(a.grad.numpy(), [[1.1290648092566429, -1.5054197456755238],
                                                [0.37635493641888096, 0.7527098728377619]], rtol=1e-13)
    np.testing.assert_allclose(b.grad.numpy(), [0.18817746820944048, -4.5162592370265715, 0.5645324046283214],
                               rtol=1e-13)
    # the two halves are clip_grad_norm_ (same numbers, same returned norm)
    c, d = _params_with_grads()
    norm = mg.nn.utils.clip_grad_norm_([c, d], 5.0)
    np.testing.assert_allclose(norm.item(), 13.285330255586423, rtol=1e-13)
    np.testing.assert_allclose(c.grad.numpy(), a.grad.numpy(), rtol=1e-13)


def test_clip_grads_with_norm_under_the_limit_and_refusals():
    a, _ = _params_with_grads(mg.float32)
    clip_grads_with_norm_(a, 100.0, _t(2.0))  # coefficient clamped to 1: unchanged (torch: [[3,-4],[1,2]])
    assert a.grad.tolist() == G1 and a.grad.dtype == mg.float32
    with pytest.raises(TypeError):  # torch: torch.clamp of a float raises TypeError
        clip_grads_with_norm_(a, 1.0, 5.0)
    clip_grads_with_norm_([mg.nn.Parameter(mg.zeros(2))], 1.0, _t(3.0))  # no grads: nothing to do


# ------------------------------------------------------------------------------------ weight_norm
# The torch fixtures below were made by (float64 default dtype, warnings about the deprecation ignored):
#   m = torch.nn.Linear(3, 4); m.weight.copy_(_sines((4, 3))); m.bias.copy_(tensor(BIAS))
#   weight_norm(m, dim=dim); y = m(X); (y * y).sum().backward()
# and printed y, m.weight_g, m.weight_g.grad, m.weight_v.grad, x.grad with .tolist().
from minigrad_ckpt.nn.utils import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm  # noqa: E402
from minigrad_ckpt.testing import gradcheck  # noqa: E402


def _sines(shape, k=0.7):
    return np.sin(np.arange(int(np.prod(shape))) * k + 0.3).reshape(shape)


X = np.cos(np.arange(6) * 0.9).reshape(2, 3)
BIAS = [0.1, -0.2, 0.3, 0.0]
Y_LINEAR = [[0.6932786366602368, 0.6403255292836627, -1.141748776769577, 0.6153969782437986],
            [-1.1308065504598068, -0.7189781802290378, 2.0548147757817112, -1.2528446274663008]]
WEIGHT_NORM_TORCH = {  # dim -> (weight_g, weight_g.grad, weight_v.grad)
    0: ([1.3337183762355764, 0.9123319234124938, 1.3696134564761455, 1.341316594636628],
        [2.7038864367776476, 1.9975534200326288, 7.669221133143128, 2.9051054899243822],
        [[2.832101879195781, 1.1840795630746077, -1.8487213717109823],
         [1.1017387321341887, 1.9945239501879757, 1.35181320282926],
         [-0.5251688738266591, -0.15783985626975497, 1.7460644333123925],
         [2.821362475417104, 1.170144090928628, -1.8942627761894657]]),
    None: ([2.5072146842251337], [7.9088518322793595],
           [[2.4990186741641285, 0.2356508389361247, -2.9664347663863575],
            [0.44996100959403185, 1.9544013347104483, 1.9422159874066038],
            [-2.9153415579487443, -2.3179873009403367, 0.8318933245567857],
            [2.513380071940153, 0.32942261666842443, -2.872318875252943]]),
    1: ([1.2634104055878086, 1.4877960022065222, 1.5736526540710551],
        [7.68588740287254, 6.445784327591933, 0.33599992555004626],
        [[1.6334378232367002, -0.7556026864237358, -0.050026419393552415],
         [-1.5284755961357115, 1.9054192795143234, 0.14278997015731248],
         [-0.052148679820469036, -1.2772769760583593, -0.2676485917881392],
         [1.600873135187667, -0.672392435202488, 0.037306048618343364]]),
}
GRAD_X = [[3.8904191887627952, 4.284076831679775, 2.6628662001107233],
          [-6.437551453822802, -7.724474244227299, -5.378456099332203]]


def _linear(dtype=mg.float64):
    m = mg.nn.Linear(3, 4, dtype=dtype)
    with mg.no_grad():
        m.weight.copy_(_t(_sines((4, 3)), dtype))
        m.bias.copy_(_t(BIAS, dtype))
    return m


@pytest.mark.parametrize("dim", [0, None, 1])
def test_weight_norm_forward_and_gradients_match_torch(dim):
    m = weight_norm(_linear(), dim=dim)
    g_expected, g_grad, v_grad = WEIGHT_NORM_TORCH[dim]
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]  # torch's keys, in torch's order
    assert [name for name, _ in m.named_parameters()] == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(m.weight_g.numpy().ravel(), g_expected, rtol=1e-13)
    x = _t(X, grad=True)
    y = m(x)
    (y * y).sum().backward()
    np.testing.assert_allclose(y.numpy(), Y_LINEAR, rtol=1e-12)
    np.testing.assert_allclose(m.weight_g.grad.numpy().ravel(), g_grad, rtol=1e-11)
    np.testing.assert_allclose(m.weight_v.grad.numpy(), v_grad, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), GRAD_X, rtol=1e-12)


def test_weight_norm_conv_update_remove_and_refusals():
    c = mg.nn.Conv1d(2, 3, 2, dtype=mg.float64)
    with mg.no_grad():
        c.weight.copy_(_t(_sines((3, 2, 2), 0.4)))
        c.bias.zero_()
    weight_norm(c)
    assert c.weight_g.shape == (3, 1, 1)
    xc = _t(np.cos(np.arange(8) * 0.5).reshape(1, 2, 4))
    yc = c(xc)
    (yc ** 2).sum().backward()
    # torch: the same on Conv1d(2, 3, 2) with weight _sines((3, 2, 2), 0.4), zero bias
    np.testing.assert_allclose(yc.numpy().ravel(), [-0.3091354486125254, -1.0940819568284366, -1.6111590445705382,
                                                    1.3895531108026167, 0.8498054946315985, 0.1019958553720102,
                                                    0.22798687451711308, 1.0444541278439305, 1.6052025840633897],
                               rtol=1e-12)
    np.testing.assert_allclose(c.weight_g.grad.numpy().ravel(),
                               [5.137282717491688, 4.164734396973401, 4.7669952904629085], rtol=1e-11)
    # the weight follows g at the next forward; remove keeps it (torch: weight_g.mul_(2); c(xc); remove)
    with mg.no_grad():
        c.weight_g.mul_(2.0)
    c(xc)
    remove_weight_norm(c)
    assert list(c.state_dict()) == ["bias", "weight"] and isinstance(c.weight, mg.nn.Parameter)
    np.testing.assert_allclose(c.weight.numpy().ravel(), [
        0.5910404133226791, 1.288435374475382, 1.7824147201228708, 1.994989973208109,
        1.892600175374829, 1.4914104243534405, 0.8547597604676596, 0.08316132486658098,
        -0.7015664553792397, -1.3755323183679475, -1.8323318734989098, -1.9998465151282017], rtol=1e-12)
    m = weight_norm(_linear())
    with pytest.raises(RuntimeError, match="two weight_norm"):
        weight_norm(m)
    with pytest.raises(ValueError, match="not found"):
        remove_weight_norm(_linear())


def test_weight_norm_loads_torch_state_dict_and_runs_under_checkpoint_and_transforms():
    m = weight_norm(_linear())
    # a torch state dict's values (weight_g, weight_v) loaded into a fresh module give torch's output
    fresh = weight_norm(mg.nn.Linear(3, 4, dtype=mg.float64))
    fresh.load_state_dict({k: v.detach().clone() for k, v in m.state_dict().items()})
    np.testing.assert_allclose(fresh(_t(X)).numpy(), Y_LINEAR, rtol=1e-12)
    # under a checkpoint: the recomputed weight is replayed in backward, gradients unchanged
    x = _t(X, grad=True)
    y = mg.checkpoint.checkpoint(m, x, use_reentrant=False)
    (y * y).sum().backward()
    np.testing.assert_allclose(m.weight_g.grad.numpy().ravel(), WEIGHT_NORM_TORCH[0][1], rtol=1e-11)
    np.testing.assert_allclose(x.grad.numpy(), GRAD_X, rtol=1e-12)
    # mg.func.grad through functional_call: g and v swapped in, gradients torch's
    params = {"weight_g": m.weight_g.detach(), "weight_v": m.weight_v.detach()}

    def loss(p):
        out = mg.func.functional_call(m, p, (_t(X),))
        return (out * out).sum()

    grads = mg.func.grad(loss)(params)
    np.testing.assert_allclose(grads["weight_g"].numpy().ravel(), WEIGHT_NORM_TORCH[0][1], rtol=1e-11)
    np.testing.assert_allclose(grads["weight_v"].numpy(), WEIGHT_NORM_TORCH[0][2], rtol=1e-10)

    def out_of(g, v):
        return mg.func.functional_call(m, {"weight_g": g, "weight_v": v}, (_t(X),))

    assert gradcheck(out_of, (_t(m.weight_g.numpy(), grad=True), _t(m.weight_v.numpy(), grad=True)))


def test_weight_norm_float32():
    m = weight_norm(_linear(mg.float32))
    y = m(_t(X, mg.float32))
    assert y.dtype == mg.float32 and m.weight_g.dtype == mg.float32
    np.testing.assert_allclose(y.numpy(), Y_LINEAR, rtol=1e-5)


# ---------------------------------------------------------------------------------- spectral_norm
# torch fixtures: m = _linear() in torch; spectral_norm(m); m.weight_u.copy_(_unit(4, 1.3));
# m.weight_v.copy_(_unit(3, 0.6)); y = m(x); (y * y).sum().backward(); then y2 = m(X); m.eval(); y3 = m(X)
def _unit(n, k):
    u = np.cos(np.arange(n) * k + 0.1)
    return u / np.linalg.norm(u)


SN_Y = [[0.383448676971766, 0.20147941419549392, -0.3888193136390213, 0.29401608033212084],
        [-0.4880381776426733, -0.447950405548447, 1.1383917703928499, -0.5985672332743697]]
SN_U1 = [0.5253399736606775, 0.12495390619494094, -0.6515049592547814, 0.5328655754195893]
SN_V1 = [0.6630592326316606, 0.6619557158439515, 0.3495240825514538]
SN_GRAD_W = [[0.03757190147709355, -0.10323114279301382, -0.3805240598169881],
             [0.40099968309301715, 0.32531849870746343, -0.04760370863548821],
             [-0.4243033912822607, -0.27731345641670047, 0.34569613905790314],
             [0.03684889231724087, -0.07237306985954117, -0.34451205602760127]]
SN_GRAD_X = [[0.6890248772565845, 0.883471402974717, 0.662407523252372],
             [-1.6684465781137336, -1.8576107864998372, -1.173111616025855]]
SN_Y2 = [[0.3691169421910264, 0.1811798081234231, -0.3539912247574886, 0.27915003639919295],
         [-0.4583057855462951, -0.4354135347150329, 1.0960009974882303, -0.5683024709640351]]
SN_U2 = [0.5739142253694398, 0.00457823754264933, -0.5785368361481186, 0.5795658986511579]


def _spectral_linear():
    m = spectral_norm(_linear())
    with mg.no_grad():
        m.weight_u.copy_(_t(_unit(4, 1.3)))
        m.weight_v.copy_(_t(_unit(3, 0.6)))
    return m


def test_spectral_norm_training_forward_buffers_and_gradients_match_torch():
    m = _spectral_linear()
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_u", "weight_v"]
    x = _t(X, grad=True)
    y = m(x)
    (y * y).sum().backward()
    np.testing.assert_allclose(y.numpy(), SN_Y, rtol=1e-12)
    np.testing.assert_allclose(m.weight_u.numpy(), SN_U1, rtol=1e-12)  # refined in place by one step
    np.testing.assert_allclose(m.weight_v.numpy(), SN_V1, rtol=1e-12)
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), SN_GRAD_W, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), SN_GRAD_X, rtol=1e-12)
    y2 = m(_t(X))  # a second training forward refines again
    np.testing.assert_allclose(y2.numpy(), SN_Y2, rtol=1e-12)
    np.testing.assert_allclose(m.weight_u.numpy(), SN_U2, rtol=1e-12)
    m.eval()  # eval: no power iteration, the buffers stay (torch: y3 == y2, u unchanged)
    u_before = m.weight_u.numpy().copy()
    np.testing.assert_allclose(m(_t(X)).numpy(), SN_Y2, rtol=1e-12)
    np.testing.assert_array_equal(m.weight_u.numpy(), u_before)
    remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    # torch: remove_spectral_norm(m); m.weight.tolist()
    np.testing.assert_allclose(m.weight.numpy(), [
        [0.13405083119132338, 0.38169939785588497, 0.44982877349121103],
        [0.30639664818514833, 0.018861391657918312, -0.27754467208340505],
        [-0.4434171397887734, -0.40074359806754956, -0.16959408038370752],
        [0.14131818328519719, 0.38576629719754835, 0.4487824937732246]], rtol=1e-12)


def test_spectral_norm_conv_transpose_uses_dim_1_and_several_iterations():
    c = mg.nn.ConvTranspose1d(2, 3, 2, dtype=mg.float64)
    with mg.no_grad():
        c.weight.copy_(_t(_sines((2, 3, 2), 0.4)))
        c.bias.zero_()
    spectral_norm(c, n_power_iterations=3)
    assert c.weight_u.shape == (3,) and c.weight_v.shape == (4,)  # torch: dim=1 for ConvTranspose
    with mg.no_grad():
        c.weight_u.copy_(_t(_unit(3, 0.8)))
        c.weight_v.copy_(_t(_unit(4, 1.1)))
    yc = c(_t(np.cos(np.arange(8) * 0.5).reshape(1, 2, 4)))
    (yc ** 2).sum().backward()
    # torch: spectral_norm(ConvTranspose1d(2, 3, 2), n_power_iterations=3), buffers set as above
    np.testing.assert_allclose(yc.numpy()[0, 1], [0.4391578994526732, 0.9936845607441791, 0.9548725187850706,
                                                  0.6822743818840515, 0.3025810508033652], rtol=1e-12)
    np.testing.assert_allclose(c.weight_u.numpy(), [0.15164258108628167, 0.6458319899359306, 0.748268379912506],
                               rtol=1e-12)
    np.testing.assert_allclose(c.weight_v.numpy(), [0.5644226877483935, 0.5595682053149933, -0.3473395143957501,
                                                    -0.49766024041986884], rtol=1e-12)
    np.testing.assert_allclose(c.weight_orig.grad.numpy()[1], [
        [0.06678017627898428, 0.3116201665055853], [-0.8434013162293508, 0.0914788730301892],
        [-1.241986887657422, -0.18415227729828487]], rtol=1e-10)


def test_spectral_norm_two_forwards_one_backward_checkpoint_and_gradcheck():
    m = _spectral_linear()
    # the GAN pattern, loss = D(real) - D(fake): the second forward's in-place refinement must not
    # disturb the first's backward (torch clones u and v for that)
    loss = m(_t(X)).sum() - m(_t(X) * 2).sum()
    loss.backward()
    assert np.isfinite(m.weight_orig.grad.numpy()).all()
    m = _spectral_linear()
    x = _t(X, grad=True)
    y = mg.checkpoint.checkpoint(m, x, use_reentrant=False)
    (y * y).sum().backward()
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), SN_GRAD_W, rtol=1e-10, atol=1e-14)
    # refined once, not again on replay: mg's checkpoint replays the recorded ops, not the Python
    # hook. torch's non-reentrant checkpoint re-runs the hook, so there u is refined twice (SN_U2) and
    # weight_orig.grad is taken through a weight the forward did not use -- a documented difference
    np.testing.assert_allclose(m.weight_u.numpy(), SN_U1, rtol=1e-12)
    m.eval()  # eval: u, v fixed, so the output is a function of weight_orig alone

    def out_of(w):
        return mg.func.functional_call(m, {"weight_orig": w}, (_t(X),))

    assert gradcheck(out_of, (_t(m.weight_orig.numpy(), grad=True),))
    with pytest.raises(RuntimeError, match="two spectral_norm"):
        spectral_norm(m)
    with pytest.raises(ValueError, match="positive"):
        spectral_norm(_linear(), n_power_iterations=0)
