"""Parameters PyTorch types as numbers (its ``Scalar``, ``float``, ``int``: ``alpha``, ``eps``,
``negative_slope``, ``p``, a ``diagonal`` offset...) given a tensor: read as PyTorch's argument parser
reads one (a 0-d tensor that does not require grad is its number; an ``int`` takes an integer tensor of
one element), refused otherwise -- never read as a number with its gradient silently lost, nor
differentiated through where PyTorch refuses."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.testing.strict  # noqa: F401  (the "strict" stand-in device)

X = np.array([[0.6, -1.2, 0.9], [1.4, -0.3, 0.7], [0.8, 1.1, -0.5]])

# (name, call(x, w) with w in a number parameter, the value that parameter takes, "Number"/"float"/"int")
CASES = [
    ("F.leaky_relu", lambda x, w: F.leaky_relu(x, w), 0.1, "Number"),
    ("F.leaky_relu inplace", lambda x, w: F.leaky_relu(x * 1, w, inplace=True), 0.1, "Number"),
    ("F.hardtanh", lambda x, w: F.hardtanh(x, w, 0.8), -0.5, "Number"),
    ("F.elu", lambda x, w: F.elu(x, w), 1.5, "Number"),
    ("F.celu", lambda x, w: F.celu(x, w), 1.5, "Number"),
    ("F.softplus", lambda x, w: F.softplus(x, beta=w), 1.5, "Number"),
    ("F.threshold", lambda x, w: F.threshold(x, w, 0.0), 0.5, "Number"),
    ("F.softshrink", lambda x, w: F.softshrink(x, w), 0.5, "Number"),
    ("F.hardshrink", lambda x, w: F.hardshrink(x, w), 0.5, "Number"),
    ("F.rrelu", lambda x, w: F.rrelu(x, w, 0.3), 0.1, "Number"),
    ("F.dropout", lambda x, w: F.dropout(x, w, training=False), 0.25, "float"),
    ("F.layer_norm", lambda x, w: F.layer_norm(x, (3,), eps=w), 1e-3, "float"),
    ("F.group_norm", lambda x, w: F.group_norm(x[None], 1, eps=w), 1e-3, "float"),
    ("F.huber_loss", lambda x, w: F.huber_loss(x, 2 * x, delta=w), 0.5, "float"),
    ("F.margin_ranking_loss", lambda x, w: F.margin_ranking_loss(x, 2 * x, x.sign(), margin=w), 0.5, "float"),
    ("F.pairwise_distance", lambda x, w: F.pairwise_distance(x, 2 * x, p=w), 2.0, "float"),
    ("add", lambda x, w: mg.add(x, x, alpha=w), 2.0, "Number"),
    ("Tensor.sub", lambda x, w: x.sub(x * 3, alpha=w), 2.0, "Number"),
    ("Tensor.add_", lambda x, w: (x * 1).add_(x, alpha=w), 2.0, "Number"),
    ("addmm", lambda x, w: mg.addmm(x, x, x, beta=w), 1.5, "Number"),
    ("addcmul", lambda x, w: mg.addcmul(x, x, x, value=w), 1.5, "Number"),
    ("linalg.vector_norm", lambda x, w: mg.linalg.vector_norm(x, w), 3.0, "Number"),
    ("renorm", lambda x, w: mg.renorm(x, 2, 0, w), 0.5, "Number"),
    ("nan_to_num", lambda x, w: mg.nan_to_num(x / 0, posinf=w), 9.0, "float"),
    ("triu", lambda x, w: mg.triu(x, w), 1, "int"),
    ("Tensor.diagonal", lambda x, w: x.diagonal(w), 1, "int"),
]
IDS = [c[0] for c in CASES]


def _tensor(value, device, **kw):
    return mg.tensor(value, device=device, **kw)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name, call, value, kind", CASES, ids=IDS)
def test_a_number_parameter_refuses_a_tensor_that_requires_grad(name, call, value, kind, dtype):
    x = mg.tensor(X, dtype=dtype)
    w = mg.tensor(float(value), requires_grad=True)
    with pytest.raises(TypeError, match=f"must be {kind}, not Tensor"):
        call(x, w)


@pytest.mark.parametrize("name, call, value, kind", CASES, ids=IDS)
def test_a_number_parameter_refuses_a_tensor_of_one_dim_unless_an_int(name, call, value, kind):
    x = mg.tensor(X, dtype=mg.float32)
    w = mg.tensor([value])
    if kind == "int":  # PyTorch's int reads an integer tensor of one element, whatever its dims
        np.testing.assert_array_equal(call(x, w).numpy(), call(x, value).numpy())
    else:
        with pytest.raises(TypeError, match=f"must be {kind}, not Tensor"):
            call(x, w)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name, call, value, kind", CASES, ids=IDS)
def test_a_number_parameter_reads_a_zero_dim_tensor_as_its_number(name, call, value, kind, device):
    x = mg.tensor(X, dtype=mg.float32)
    expected = call(x, value).numpy()
    for w in (_tensor(value, device), _tensor(value, device, dtype=mg.float64)):
        if kind == "int" and w.dtype.kind == "f":
            with pytest.raises(TypeError, match="must be int, not Tensor"):  # an int takes no float tensor
                call(x, w)
            continue
        got = call(x, w)
        assert got.dtype == mg.float32
        np.testing.assert_array_equal(got.numpy(), expected)


def test_a_number_read_from_a_tensor_keeps_the_inputs_gradient():
    # read as a number, the parameter leaves the input's own gradient as with the Python number
    x = mg.tensor(X, requires_grad=True)
    F.leaky_relu(x, mg.tensor(0.1, dtype=mg.float64)).sum().backward()
    g = x.grad.numpy().copy()
    x.grad = None
    F.leaky_relu(x, 0.1).sum().backward()
    np.testing.assert_array_equal(g, x.grad.numpy())


def test_an_integral_alpha_tensor_is_checked_as_its_number():
    # PyTorch reads the 0-d tensor as its Scalar, then checks it against the sum's dtype
    a = mg.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="must not be a floating point number"):
        mg.add(a, a, alpha=mg.tensor(2.0))
    np.testing.assert_array_equal(mg.add(a, a, alpha=mg.tensor(2)).numpy(), [3, 6, 9])
