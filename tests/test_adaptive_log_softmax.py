"""``nn.AdaptiveLogSoftmaxWithLoss``: PyTorch's values and gradients, and its seams.

The fixture was made offline with PyTorch 2.13 (``torch.nn.AdaptiveLogSoftmaxWithLoss(4, 7, [2, 4],
div_value=2.0, head_bias=True).double()`` with the weights below): two clusters, a target in each part
(shortlist 0-1, cluster 2-3, cluster 4-6).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in device)
from minigrad_ckpt import func as F
from minigrad_ckpt import nn

PARAMS = {'head.weight': [[0.305, -1.04, 0.75, 0.941], [-1.951, -1.302, 0.128, -0.316], [-0.017, -0.853, 0.879, 0.778],
                          [0.066, 1.127, 0.468, -0.859]],
          'head.bias': [0.369, -0.959, 0.878, -0.05],
          'tail.0.0.weight': [[-0.185, -0.681, 1.223, -0.155], [-0.428, -0.352, 0.532, 0.365]],
          'tail.0.1.weight': [[0.413, 0.431], [2.142, -0.406]],
          'tail.1.0.weight': [[-0.512, -0.814, 0.616, 1.129]],
          'tail.1.1.weight': [[-0.114], [-0.84], [-0.824]]}
X = [[0.651, 0.743, 0.543, -0.666], [0.232, 0.117, 0.219, 0.871], [0.224, 0.679, 0.068, 0.289],
     [0.631, -1.457, -0.32, -0.47], [-0.639, -0.275, 1.495, -0.866]]
TARGET = [0, 3, 6, 1, 4]
OUTPUT = [-2.3933192207764855, -1.4307236533756267, -2.048251129547536, -2.4294605758619645, -2.463845763514436]
LOSS = 2.15312006861521
GRAD_X = [[-0.049292781336802066, 0.3231260246098682, -0.03785099997262455, -0.27089037030596397],
          [0.014811164249617616, 0.10630406318289595, -0.2032969994151934, 0.05291763591884427],
          [-0.02403721771570816, -0.29502175631848926, 0.06783009373261958, 0.2563984005127601],
          [0.3807042066494187, 0.07628854502255694, 0.12377965643067064, 0.20487622089330557],
          [-0.04505058701833873, -0.27228098507706155, -0.023168237915769753, 0.12292802965007998]]
GRADS = {'head.weight': [[-0.056147002887913564, -0.22809831857168378, -0.0597140430927197, 0.13392573823408047],
                         [-0.14040061169688514, 0.25797682005117767, 0.12573267217795056, 0.05090614034010897],
                         [0.022030151574271503, -0.08962066469917278, 0.10007008019040636, -0.19632533845390504],
                         [0.17451746301052729, 0.059742163219678845, -0.1660887092756373, 0.011493459879715617]],
         'head.bias': [0.05731392782524579, -0.12954659226559756, 0.19510884325800426, -0.12287617881765248],
         'tail.0.0.weight': [[-0.044672563941168815, -0.02252883612550324, -0.04216935992722401, -0.1677146689343019],
                             [0.021625758252607458, 0.010906093601530484, 0.020413970074659622, 0.08118980792250471]],
         'tail.0.1.weight': [[0.0011398448673188171, 0.032735654111802175],
                             [-0.0011398448673188173, -0.03273565411180218]],
         'tail.1.0.weight': [[0.06245129908379989, 0.049987922681837875, -0.12262359477185962, 0.08405850328338153]],
         'tail.1.1.weight': [[-0.07490351002953605], [0.007364140342422623], [0.06753936968711344]]}
LOG_PROB0 = [-2.3933192207764855, -4.885225220776485, -2.851326644879562, -2.193914429879562, -2.151673978847009,
             -1.167551938847009, -1.1892405788470088]
PREDICT = [5, 0, 2, 0, 3]


def fixture_model(device="cpu", dtype=mg.float64):
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 7, [2, 4], div_value=2.0, head_bias=True, dtype=mg.float64)
    m.load_state_dict({k: mg.tensor(v, dtype=mg.float64) for k, v in PARAMS.items()})
    return m.to(device=device, dtype=dtype)


def test_values_and_gradients_are_pytorchs():
    m = fixture_model()
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    out, loss = m(x, mg.tensor(TARGET))
    loss.backward()
    np.testing.assert_allclose(out.numpy(), OUTPUT, rtol=1e-13)
    assert loss.item() == pytest.approx(LOSS, rel=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), GRAD_X, rtol=1e-12, atol=1e-15)
    for name, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), GRADS[name], rtol=1e-12, atol=1e-15, err_msg=name)
    np.testing.assert_allclose(m.log_prob(x)[0].detach().numpy(), LOG_PROB0, rtol=1e-13)
    assert m.predict(x).tolist() == PREDICT
    assert list(m.state_dict()) == list(PARAMS)  # PyTorch's keys: a state_dict loads either way


def test_the_layout_is_pytorchs():
    m = nn.AdaptiveLogSoftmaxWithLoss(64, 1000, [10, 100, 500], div_value=4.0)
    assert (m.shortlist_size, m.n_clusters, m.head_size, m.cutoffs) == (10, 3, 13, [10, 100, 500, 1000])
    assert m.head.bias is None
    assert [(a.weight.shape, b.weight.shape) for a, b in m.tail] == [((16, 64), (90, 16)), ((4, 64), (400, 4)),
                                                                     ((1, 64), (500, 1))]
    assert nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss is nn.AdaptiveLogSoftmaxWithLoss


def test_output_is_log_prob_at_the_target_and_predict_is_its_argmax():
    rng = np.random.default_rng(0)
    for seed in range(6):
        mg.manual_seed(seed)
        m = nn.AdaptiveLogSoftmaxWithLoss(6, 13, [3, 5, 9], div_value=1.5, head_bias=bool(seed % 2)).double()
        x = mg.tensor(rng.standard_normal((11, 6)) * (1 + 2 * seed))
        target = rng.integers(0, 13, 11)
        full = m.log_prob(x).numpy()
        np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)
        np.testing.assert_allclose(m(x, mg.tensor(target)).output.numpy(), full[np.arange(11), target], rtol=1e-12)
        assert m.predict(x).tolist() == full.argmax(1).tolist()


@pytest.mark.parametrize("bias", [-30.0, 30.0], ids=["every row in a cluster", "every row in the shortlist"])
def test_predict_when_the_head_sends_every_row_one_way(bias):
    mg.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 8, [2, 5], div_value=2.0, head_bias=True).double()
    with mg.no_grad():
        m.head.bias.copy_(mg.tensor([bias, bias, -bias, -bias], dtype=mg.float64))
    x = mg.randn(6, 8, dtype=mg.float64)
    assert m.predict(x).tolist() == m.log_prob(x).argmax(dim=1).tolist()


def test_a_0d_target_takes_one_example():
    m = fixture_model()
    out, loss = m(mg.tensor(X[2], dtype=mg.float64), mg.tensor(TARGET[2]))
    assert out.shape == () and out.item() == pytest.approx(OUTPUT[2], rel=1e-13)
    assert loss.item() == pytest.approx(-OUTPUT[2], rel=1e-13)


def test_gradients_match_central_differences_in_input_and_weights():
    m = fixture_model()
    names = list(PARAMS)
    target = mg.tensor(TARGET)

    def loss(x, *weights):
        return F.functional_call(m, dict(zip(names, weights)), (x, target)).loss

    args = [mg.tensor(X, dtype=mg.float64, requires_grad=True)] + [p.detach().requires_grad_() for p in
                                                                     m.parameters()]
    assert mg.autograd.gradcheck(loss, tuple(args))


def test_forward_mode_agrees_with_reverse_mode():
    m = fixture_model()
    x = mg.tensor(X, dtype=mg.float64)
    v = mg.tensor(np.random.default_rng(1).standard_normal((5, 4)))
    f = lambda x: m(x, mg.tensor(TARGET)).loss  # noqa: E731
    _, tangent = F.jvp(f, (x,), (v,))
    np.testing.assert_allclose(tangent.item(), (F.grad(f)(x) * v).sum().item(), rtol=1e-12)
    np.testing.assert_allclose(F.grad(f)(x).numpy(), GRAD_X, rtol=1e-12, atol=1e-15)


def test_inside_a_checkpoint_the_gradients_are_bitwise_the_same():
    def grads(checkpointed):
        m = fixture_model()
        x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
        run = lambda x: m(x, mg.tensor(TARGET)).loss  # noqa: E731
        loss = mg.checkpoint.checkpoint(run, x, use_reentrant=False) if checkpointed else run(x)
        loss.backward()
        return [x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()]

    for a, b in zip(grads(False), grads(True)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_the_strict_device_gives_the_cpus_values(device):
    dtype = mg.float32 if device == "strict-f32" else mg.float64
    results = []
    for dev in ("cpu", device):
        m = fixture_model(dev, dtype)
        x = mg.tensor(X, dtype=dtype, device=dev, requires_grad=True)
        out, loss = m(x, mg.tensor(TARGET, device=dev))
        loss.backward()
        assert out.dtype == dtype and loss.dtype == dtype
        results.append([out.cpu().numpy(), x.grad.cpu().numpy(), m.log_prob(x.detach()).cpu().numpy(),
                        m.predict(x.detach()).cpu().numpy(), m.head.weight.grad.cpu().numpy()])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cutoffs", [[], [4, 3], [0, 3], [4, 7], [4, 4], [2.5]])
def test_bad_cutoffs_are_refused_in_pytorchs_words(cutoffs):
    with pytest.raises(ValueError, match="cutoffs should be a sequence"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 7, cutoffs)


@pytest.mark.parametrize("x_shape, target, message", [
    ((3, 4), [0, 1, 2, 3], "same size in the batch dimension"),
    ((3, 4), [[0], [1], [2]], "0D or 1D target tensor expected"),
    ((2, 3, 4), [0, 1], "1D target tensor expects 2D input"),
    ((3, 4), 0, "0D target tensor expects 1D input"),
    ((3, 4), [0, 7, -1], r"Target values should be in \[0, 6\], but values in range \[-1, 7\] were found"),
])
def test_bad_shapes_and_targets_are_refused_in_pytorchs_words(x_shape, target, message):
    m = fixture_model()
    with pytest.raises(RuntimeError, match=message):
        m(mg.zeros(x_shape, dtype=mg.float64), mg.tensor(target))


def test_a_saved_state_loads_into_a_fresh_layer_and_resumes_bitwise(tmp_path):
    m = fixture_model()
    opt = mg.optim.Adam(m.parameters(), lr=0.01)
    x, target = mg.tensor(X, dtype=mg.float64), mg.tensor(TARGET)

    def step(model, optimizer):
        optimizer.zero_grad()
        loss = model(x, target).loss
        loss.backward()
        optimizer.step()
        return loss.item()

    step(m, opt)
    mg.save({"model": m.state_dict(), "opt": opt.state_dict()}, tmp_path / "state.pt")
    after = [step(m, opt) for _ in range(2)]
    saved = mg.load(tmp_path / "state.pt")
    fresh = nn.AdaptiveLogSoftmaxWithLoss(4, 7, [2, 4], div_value=2.0, head_bias=True, dtype=mg.float64)
    fresh.load_state_dict(saved["model"])
    fresh_opt = mg.optim.Adam(fresh.parameters(), lr=0.01)
    fresh_opt.load_state_dict(saved["opt"])
    assert [step(fresh, fresh_opt) for _ in range(2)] == after
    for a, b in zip(m.parameters(), fresh.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_vmap_over_examples_gives_the_batchs_outputs_and_per_example_gradients():
    m = fixture_model()
    x, target = mg.tensor(X, dtype=mg.float64), mg.tensor(TARGET)
    per_example = F.vmap(lambda xi, ti: m(xi, ti).output)(x, target)
    np.testing.assert_allclose(per_example.numpy(), OUTPUT, rtol=1e-13)
    grads = F.vmap(F.grad(lambda xi, ti: m(xi, ti).loss))(x, target)  # each row's own loss: the batch's * N
    np.testing.assert_allclose(grads.numpy(), np.asarray(GRAD_X) * len(TARGET), rtol=1e-12, atol=1e-15)
