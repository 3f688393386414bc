"""Parameters PyTorch types as numbers (its ``Scalar``, ``float``, ``int``: ``alpha``, ``eps``,
``negative_slope``, ``p``, a ``diagonal`` offset...) given a tensor: read as PyTorch's argument parser
reads one (a 0-d tensor that does not require grad is its number; an ``int`` takes an integer tensor of
one element), refused otherwise -- never read as a number with its gradient silently lost, nor
differentiated through where PyTorch refuses."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.testing.strict  # noqa: F401  (the "strict" stand-in device)

X = np.array([[0.6, -1.2, 0.9], [1.4, -0.3, 0.7], [0.8, 1.1, -0.5]])


def _seeded(draw):
    """``draw()`` from a fixed seed: a random fill (or a layer's initial weights) the same for the number
    and for the tensor that stands for it."""
    mg.manual_seed(0)
    return draw()

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
    ("triu", lambda x, w: mg.triu(x, w), 1, "SymInt"),
    ("Tensor.diagonal", lambda x, w: x.diagonal(w), 1, "int"),
    ("histc bins", lambda x, w: mg.histc(x, w), 4, "int"),
    # random fills (seeded: the number and its tensor draw the same sample)
    ("Tensor.uniform_", lambda x, w: _seeded(lambda: (x * 1).uniform_(w, 2.0)), 0.5, "float"),
    ("Tensor.normal_", lambda x, w: _seeded(lambda: (x * 1).normal_(std=w)), 0.5, "float"),
    ("Tensor.log_normal_", lambda x, w: _seeded(lambda: (x * 1).log_normal_(w)), 0.5, "float"),
    ("Tensor.cauchy_", lambda x, w: _seeded(lambda: (x * 1).cauchy_(sigma=w)), 0.5, "float"),
    ("Tensor.exponential_", lambda x, w: _seeded(lambda: (x * 1).exponential_(w)), 0.5, "float"),
    ("Tensor.geometric_", lambda x, w: _seeded(lambda: (x * 1).geometric_(w)), 0.5, "float"),
    ("randperm", lambda x, w: _seeded(lambda: mg.randperm(w)), 3, "SymInt"),
    # creation
    ("arange end", lambda x, w: mg.arange(w), 3.0, "Number"),
    ("arange step", lambda x, w: mg.arange(0.0, 2.0, w), 0.5, "Number"),
    ("logspace base", lambda x, w: mg.logspace(0.0, 1.0, 4, base=w), 2.0, "float"),
    ("scalar_tensor", lambda x, w: mg.scalar_tensor(w), 1.5, "Number"),
    ("fft.fftfreq d", lambda x, w: mg.fft.fftfreq(4, w), 0.5, "float"),
    ("fft.rfftfreq n", lambda x, w: mg.fft.rfftfreq(w), 5, "int"),
    # elementwise, indexing, statistics
    ("logit", lambda x, w: mg.logit(x.sigmoid(), w), 0.4, "float"),
    ("special.logit", lambda x, w: mg.special.logit(x.sigmoid(), eps=w), 0.4, "float"),
    ("index_add", lambda x, w: mg.index_add(x, 0, mg.tensor([0, 2]), x[:2], alpha=w), 2.0, "Number"),
    ("Tensor.index_add_", lambda x, w: (x * 1).index_add_(0, mg.tensor([0, 2]), x[:2], alpha=w), 2.0, "Number"),
    ("Tensor.fill_diagonal_", lambda x, w: (x * 1).fill_diagonal_(w), 2.5, "Number"),
    ("cov", lambda x, w: mg.cov(x, correction=w), 0, "int"),
    ("std correction", lambda x, w: mg.std(x, correction=w), 0.5, "Number"),
    ("kthvalue", lambda x, w: mg.kthvalue(x, w).values, 2, "SymInt"),
    ("polygamma", lambda x, w: mg.polygamma(w, x.abs() + 1), 2, "int"),
    ("matrix_power", lambda x, w: mg.matrix_power(x, w), 2, "int"),
    ("chunk", lambda x, w: mg.chunk(x, w)[0], 3, "int"),
    ("rot90", lambda x, w: mg.rot90(x, w), 1, "int"),
    ("trapezoid dx", lambda x, w: mg.trapezoid(x, dx=w), 0.5, "Number"),
    ("cumulative_trapezoid dx", lambda x, w: mg.cumulative_trapezoid(x, dx=w), 0.5, "Number"),
    ("gradient spacing", lambda x, w: mg.gradient(x, spacing=w)[0], 2.0, "Number"),
    ("gradient edge_order", lambda x, w: mg.gradient(x, edge_order=w)[0], 2, "int"),
    ("pinverse rcond", lambda x, w: mg.pinverse(x, w), 0.1, "float"),
    ("linalg.lstsq rcond", lambda x, w: mg.linalg.lstsq(x, x, rcond=w).solution, 0.1, "float"),
    # nn.functional
    ("F.conv1d groups", lambda x, w: F.conv1d(x[None], x[:, :1, None], groups=w), 3, "SymInt"),
    ("F.conv2d stride", lambda x, w: F.conv2d(x[None, None], x[None, None, :2, :2], stride=w), 2, "SymInt"),
    ("F.conv2d padding", lambda x, w: F.conv2d(x[None, None], x[None, None, :2, :2], padding=w), 1, "SymInt"),
    ("F.max_pool1d padding", lambda x, w: F.max_pool1d(x[None], 3, padding=w), 1, "SymInt"),
    ("F.avg_pool2d kernel_size", lambda x, w: F.avg_pool2d(x[None, None], w), 2, "SymInt"),
    ("F.embedding padding_idx", lambda x, w: F.embedding(mg.tensor([0, 1, 2]), x, padding_idx=w), 1, "SymInt"),
    ("F.channel_shuffle", lambda x, w: F.channel_shuffle(x.reshape(1, 9, 1), w), 3, "SymInt"),
    ("F.pixel_shuffle", lambda x, w: F.pixel_shuffle(x.reshape(1, 9, 1, 1), w), 3, "int"),
    ("F.pad value", lambda x, w: F.pad(x, (1, 1), value=w), 2.5, "float"),
    ("constant_pad_nd", lambda x, w: mg.constant_pad_nd(x, (1, 1), w), 2.5, "Number"),
    ("F.scaled_dot_product_attention scale",
     lambda x, w: F.scaled_dot_product_attention(x[None], x[None], x[None], scale=w), 0.5, "float"),
    ("F.scaled_dot_product_attention dropout_p",
     lambda x, w: F.scaled_dot_product_attention(x[None], x[None], x[None], dropout_p=w), 0.0, "float"),
    # layers: PyTorch's forward hands the number to a function that reads it so
    ("nn.Dropout", lambda x, w: nn.Dropout(w).eval()(x), 0.25, "float"),
    ("nn.LayerNorm", lambda x, w: nn.LayerNorm(3, eps=w)(x.float()), 1e-3, "float"),
    ("nn.BatchNorm1d", lambda x, w: nn.BatchNorm1d(3, eps=w)(x.float()), 1e-3, "float"),
    ("nn.ConstantPad1d", lambda x, w: nn.ConstantPad1d(1, w)(x), 2.5, "float"),
    ("nn.GroupNorm", lambda x, w: nn.GroupNorm(w, 3)(x.float()), 1, "int"),
    ("nn.PixelShuffle", lambda x, w: nn.PixelShuffle(w)(x.reshape(1, 9, 1, 1)), 3, "int"),
    ("nn.ChannelShuffle", lambda x, w: nn.ChannelShuffle(w)(x.reshape(1, 9, 1)), 3, "SymInt"),
    ("nn.Conv1d groups", lambda x, w: _seeded(lambda: nn.Conv1d(3, 3, 1, groups=w)(x[None].float())), 3, "SymInt"),
    ("nn.Conv2d stride", lambda x, w: _seeded(lambda: nn.Conv2d(1, 1, 2, stride=w)(x[None, None].float())), 2,
     "SymInt"),
    ("nn.MaxPool1d padding", lambda x, w: nn.MaxPool1d(3, padding=w)(x[None]), 1, "SymInt"),
]
IDS = [c[0] for c in CASES]
INTS = ("int", "SymInt")  # an int, and PyTorch's size-like int (one integer element of any dims reads as it)


def _refusal(kind):
    """The words of PyTorch's TypeError for a parameter of ``kind`` (a SymInt is an int in its messages)."""
    return f"must be {'int' if kind in INTS else kind}, not Tensor"


def _tensor(value, device, **kw):
    return mg.tensor(value, device=device, **kw)


def _values(result):
    """The arrays of a result (a tensor, or a tuple of them)."""
    if isinstance(result, (tuple, list)):
        return [r.numpy() for r in result]
    return [result.numpy()]


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name, call, value, kind", CASES, ids=IDS)
def test_a_number_parameter_refuses_a_tensor_that_requires_grad(name, call, value, kind, dtype):
    x = mg.tensor(X, dtype=dtype)
    w = mg.tensor(float(value), dtype=dtype, requires_grad=True)
    with pytest.raises(TypeError, match=_refusal(kind)):
        call(x, w)


@pytest.mark.parametrize("name, call, value, kind", CASES, ids=IDS)
def test_a_number_parameter_refuses_a_tensor_of_one_dim_unless_a_symint(name, call, value, kind):
    x = mg.tensor(X, dtype=mg.float32)
    w = mg.tensor([value])
    if kind == "SymInt":  # PyTorch's SymInt reads an integer tensor of one element, whatever its dims
        for got, expected in zip(_values(call(x, w)), _values(call(x, value))):
            np.testing.assert_array_equal(got, expected)
    else:  # (an int: a 0-d integer tensor only -- torch.diagonal(x, torch.tensor([1])) is its TypeError)
        with pytest.raises(TypeError, match=_refusal(kind)):
            call(x, w)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name, call, value, kind", CASES, ids=IDS)
def test_a_number_parameter_reads_a_zero_dim_tensor_as_its_number(name, call, value, kind, device, dtype):
    x = mg.tensor(X, dtype=dtype)
    for w in (_tensor(value, device), _tensor(value, device, dtype=mg.float64)):
        if kind in INTS and w.dtype.kind == "f":
            with pytest.raises(TypeError, match="must be int, not Tensor"):  # an int takes no float tensor
                call(x, w)
            continue
        got, expected = call(x, w), call(x, w.item())  # (a float32 0.1 is 0.10000000149 in a float64 sum)
        if isinstance(got, mg.Tensor):
            assert got.dtype == expected.dtype
        for a, b in zip(_values(got), _values(expected)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name, call, value, kind", CASES, ids=IDS)
def test_a_number_parameter_reads_a_numpy_number_as_its_python_number(name, call, value, kind, dtype):
    """PyTorch's parser reads a NumPy scalar as the Python number it holds: the same result, the same
    dtype (``F.hardtanh(x32, np.float32(-0.5))`` was refused as not a float, and ``np.float64(-0.5)``
    made a float64 result of a float32 input)."""
    x = mg.tensor(X, dtype=dtype)
    spellings = (np.int64, np.int32) if kind in INTS else (np.float32, np.float64)
    if kind not in INTS and float(value).is_integer():
        spellings += (np.int64,)
    for w in (spelling(value) for spelling in spellings):
        got, expected = call(x, w), call(x, w.item())
        if isinstance(got, mg.Tensor):
            assert got.dtype == expected.dtype
        for a, b in zip(_values(got), _values(expected)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name, call, value, kind", [c for c in CASES if c[3] in INTS],
                         ids=[c[0] for c in CASES if c[3] in INTS])
def test_an_int_parameter_refuses_a_float_or_a_bool(name, call, value, kind):
    """An ``int`` (or ``SymInt``) parameter given a float or a bool -- Python's or NumPy's -- is PyTorch's
    TypeError (``torch.tril(x, 0.5)``: "argument 'diagonal' must be int, not float"); it was truncated."""
    x = mg.tensor(X, dtype=mg.float32)
    for w in (float(value), np.float64(value), np.float32(value), True, np.bool_(True)):
        with pytest.raises(TypeError, match="must be int, not"):
            call(x, w)


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


# Where PyTorch's own Python, or a Tensor overload, reads the tensor instead of its argument parser


def test_linspace_and_logspace_read_zero_dim_ends_even_requiring_grad_and_refuse_one_dim():
    # their Tensor overloads take a 0-d end (its value: the result is a constant); a 1-d one is refused
    w = mg.tensor(0.5, requires_grad=True)
    for fn in (mg.linspace, mg.logspace):
        got = fn(w, 2.0, 4)
        assert not got.requires_grad
        np.testing.assert_array_equal(got.numpy(), fn(0.5, 2.0, 4).numpy())
        with pytest.raises(RuntimeError, match="only supports 0-dimensional start and end tensors"):
            fn(mg.tensor([0.5]), 2.0, 4)
        with pytest.raises(RuntimeError, match="got end with 1 dimension"):
            fn(0.5, mg.tensor([2.0]), 4)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_pinv_refuses_a_tolerance_that_requires_grad_where_gradients_are_recorded(dtype):
    x = mg.tensor(X, dtype=dtype)
    tol = mg.tensor(0.1, dtype=dtype, requires_grad=True)
    for keyword, word in (("atol", "atol"), ("rtol", "rtol"), ("rcond", "rtol")):
        with pytest.raises(RuntimeError, match=f"not differentiable with respect to argument '{word}'"):
            mg.linalg.pinv(x, **{keyword: tol})
        with mg.no_grad():  # (PyTorch's check is autograd's: nothing is recorded here)
            np.testing.assert_array_equal(mg.linalg.pinv(x, **{keyword: tol}).numpy(),
                                          mg.linalg.pinv(x, **{keyword: tol.item()}).numpy())


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_bernoulli_fill_with_a_probability_tensor_that_requires_grad_gives_it_a_zero_gradient(dtype):
    # PyTorch's Tensor overload differentiates p: its BernoulliBackward1 sends zeros
    plain = _seeded(lambda: mg.zeros(4, dtype=dtype).bernoulli_(0.5)).numpy()
    for p in (mg.tensor(0.5, dtype=dtype, requires_grad=True), mg.full((4,), 0.5, dtype=dtype, requires_grad=True)):
        y = _seeded(lambda p=p: mg.zeros(4, dtype=dtype).bernoulli_(p))
        np.testing.assert_array_equal(y.detach().numpy(), plain)
        assert y.requires_grad
        y.sum().backward()
        np.testing.assert_array_equal(p.grad.numpy(), np.zeros(p.shape))


def test_tensor_split_reads_a_one_element_tensor_as_int_does():
    # PyTorch's Tensor.split (Python) reads int(split_size) first: any one-element tensor, a float one too
    x = mg.tensor(X)
    for size in (mg.tensor(1), mg.tensor(1.0), mg.tensor([1]), mg.tensor(1.0, requires_grad=True)):
        assert [p.shape for p in x.split(size)] == [(1, 3)] * 3
    assert [p.shape for p in mg.split(x, mg.tensor(3))] == [(1, 3)] * 3  # NumPy's split: a 0-d count
    assert [p.shape for p in x.vsplit(mg.tensor(3))] == [(1, 3)] * 3
    for split in (mg.hsplit, mg.vsplit):  # sections, an int: a 0-d integer tensor (a 1-D one: split points)
        with pytest.raises(TypeError, match="must be int, not Tensor"):
            split(x, mg.tensor(3.0))
        with pytest.raises(TypeError, match="must be int, not Tensor"):
            split(x, mg.tensor(3.0, requires_grad=True))
        assert [p.shape[0] + p.shape[1] for p in split(x, mg.tensor([1]))] == [4, 5]


def test_a_tuple_of_size_tensors_reads_each_entry():
    x = mg.tensor(X, dtype=mg.float32)[None, None]
    w = x[:, :, :2, :2]
    np.testing.assert_array_equal(F.conv2d(x, w, stride=(mg.tensor(1), mg.tensor([2]))).numpy(),
                                  F.conv2d(x, w, stride=(1, 2)).numpy())
    with pytest.raises(TypeError, match="must be int, not Tensor"):  # a float entry is refused, not truncated
        F.conv2d(x, w, stride=(mg.tensor(1.0), mg.tensor(2.0)))


@pytest.mark.parametrize("name", ["Adadelta", "Adagrad", "Adamax", "NAdam", "RMSprop"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_an_optimizers_eps_may_be_a_zero_dim_tensor(name, device):
    # PyTorch adds it in place (denom.add_(eps)): its value; here NumPy refused the Tensor outright
    def run(eps):
        p = mg.tensor([0.5, 1.0, 1.5], requires_grad=True)
        opt = getattr(mg.optim, name)([p], eps=eps)
        for _ in range(2):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        return p.detach().numpy()
    for eps in (mg.tensor(1e-3, device=device), mg.tensor(1e-3, dtype=mg.float64, device=device)):
        np.testing.assert_array_equal(run(eps), run(1e-3))


def _optimizer_run(cls, **hyper):
    p = mg.tensor([0.5, 1.0, 1.5], requires_grad=True)
    opt = cls([p], **hyper)
    for _ in range(2):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step((lambda: (p * p).sum()) if cls is mg.optim.LBFGS else None)
    return p.detach().numpy()


@pytest.mark.parametrize("cls, hyper, value", [
    (mg.optim.LBFGS, "lr", 0.5),  # PyTorch's step: p.add_(d, alpha=t), t from lr
    (mg.optim.Rprop, "lr", 0.1),  # PyTorch's state: torch.full_like(g, lr)
    (mg.optim.Adagrad, "initial_accumulator_value", 0.1),  # torch.full_like(p, value)
], ids=["LBFGS lr", "Rprop lr", "Adagrad initial_accumulator_value"])
def test_an_optimizer_number_read_by_the_parser_refuses_a_tensor_that_requires_grad(cls, hyper, value):
    with pytest.raises(TypeError, match="must be Number, not Tensor"):
        _optimizer_run(cls, **{hyper: mg.tensor(value, requires_grad=True)})
    np.testing.assert_array_equal(_optimizer_run(cls, **{hyper: mg.tensor(value)}),
                                  _optimizer_run(cls, **{hyper: value}))
    if cls is not mg.optim.Adagrad:  # PyTorch's lr of one element of any dims is its value (_to_scalar)
        np.testing.assert_array_equal(_optimizer_run(cls, **{hyper: mg.tensor([value])}),
                                      _optimizer_run(cls, **{hyper: value}))


@pytest.mark.parametrize("layer, fn, x", [
    (nn.LPPool1d, F.lp_pool1d, X[None]), (nn.LPPool2d, F.lp_pool2d, X[None, None]),
], ids=["1d", "2d"])
def test_an_lp_pool_layer_reads_its_norm_type_tensor_as_a_number(layer, fn, x):
    # PyTorch's layer calls its function with float(norm_type): no gradient; the function differentiates one
    x = mg.tensor(x, dtype=mg.float32)
    w = mg.tensor(3.0, requires_grad=True)
    y = layer(w, 2)(x)
    assert not y.requires_grad
    np.testing.assert_array_equal(y.numpy(), layer(3.0, 2)(x).numpy())
    assert fn(x, w, 2).requires_grad


@pytest.mark.parametrize("layer, spatial", [(nn.Conv1d, 1), (nn.Conv2d, 2), (nn.Conv3d, 3)])
@pytest.mark.parametrize("param", ["kernel_size", "stride", "padding", "dilation"])
@pytest.mark.parametrize("value", [1.5, True, "tensor"])
def test_a_conv_layers_size_refusal_names_the_argument_given(layer, spatial, param, value):
    # the TypeError names the one argument that is wrong, as the transposed layers' do
    if value == "tensor":
        value = mg.tensor(2.0)
    kwargs = {"kernel_size": 1, param: value}
    with pytest.raises(TypeError, match=f"argument '{param}' must be int"):
        layer(1, 1, **kwargs)


@pytest.mark.parametrize("layer, wrong", [("Conv1d", (3, 3)), ("Conv2d", (3,)), ("Conv2d", [3]), ("Conv2d", (3, 3, 3)),
                                          ("Conv3d", (3, 3))])
@pytest.mark.parametrize("param", ["kernel_size", "stride", "dilation"])
def test_a_conv_layers_size_tuple_of_another_length_is_refused_not_reshaped(layer, wrong, param):
    # a 1-tuple was silently taken for a square kernel and a 3-tuple cut short (PyTorch's layer keeps
    # the tuple and its forward fails): refused when the layer is built, naming the argument
    args = {"kernel_size": 1, param: wrong}
    with pytest.raises(ValueError, match=f"{layer}: {param} must be an int or a"):
        getattr(mg.nn, layer)(1, 1, **args)


# torch 2.13 reads a complex Scalar of a kernel for real numbers as the input's real type: its real part
# where the imaginary part is 0, else "value cannot be converted to type float without overflow"
REAL_KERNEL_SCALARS = [
    ("leaky_relu", lambda x, v: F.leaky_relu(x, v)),
    ("softplus beta", lambda x, v: F.softplus(x, beta=v)),
    ("softplus threshold", lambda x, v: F.softplus(x, threshold=v)),
    ("elu", lambda x, v: F.elu(x, alpha=v)),
    ("celu", lambda x, v: F.celu(x, alpha=v)),
    ("threshold value", lambda x, v: F.threshold(x, 0.0, v)),
    ("softshrink", lambda x, v: F.softshrink(x, v)),
    ("hardshrink", lambda x, v: F.hardshrink(x, v)),
    ("rrelu lower", lambda x, v: F.rrelu(x, lower=v, upper=1.5, training=False)),
]


@pytest.mark.parametrize("name, call", REAL_KERNEL_SCALARS, ids=[c[0] for c in REAL_KERNEL_SCALARS])
def test_a_complex_scalar_of_a_real_kernel_is_its_real_part_or_refused(name, call):
    # F.elu(x, alpha=1+1j) and celu made a complex result of a real input; leaky_relu, softplus and
    # threshold refused 1+0j with Python's float() TypeError (torch 2.13: float32 results)
    x = mg.tensor([-1.5, 0.25, 2.0])
    expected = call(x, 1.0)
    for v in (1 + 0j, np.complex128(1 + 0j), mg.tensor(1 + 0j)):
        got = call(x, v)
        assert got.dtype == mg.float32
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    for v in (1 + 1j, np.complex64(1 + 1j), mg.tensor(1 + 1j)):
        with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
            call(x, v)


NUMPY_BOOL_CALLS = [
    ("hardtanh min_val", lambda b: F.hardtanh(mg.tensor([-1.5, 0.25, 2.0]), min_val=b)),
    ("leaky_relu", lambda b: F.leaky_relu(mg.tensor([-1.5, 0.25, 2.0]), b)),
    ("add alpha, bool", lambda b: mg.tensor([True, False]).add(mg.tensor([False, False]), alpha=b)),
    ("add alpha, float", lambda b: mg.tensor([1.0, 2.0]).add(mg.tensor([1.0, 2.0]), alpha=b)),
    ("full", lambda b: mg.full((2,), b)),
    ("threshold value", lambda b: F.threshold(mg.tensor([-1.5, 0.25, 2.0]), 0.0, b)),
]


@pytest.mark.parametrize("name, call", NUMPY_BOOL_CALLS, ids=[c[0] for c in NUMPY_BOOL_CALLS])
def test_a_numpy_bool_reads_as_pythons_bool(name, call):
    # np.bool_ is not one of NumPy's numbers (np.number), so number() let it through as it was:
    # F.hardtanh(x, min_val=np.True_) failed inside the op ("attribute 'min_val' must be float, got
    # np.True_"). Now it is Python's True, with True's answer or True's refusal. (torch 2.13's parser
    # reads a NumPy bool as the float 1.0 -- x.add(y, alpha=np.True_) of float tensors answers there, of
    # bool tensors is refused, full((2,), np.True_) is float32 -- see docs/from-pytorch.md.)
    outcomes = []
    for b in (True, np.bool_(True)):
        try:
            r = call(b)
            outcomes.append((r.dtype, r.tolist()))
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


FLOAT_CASES = [c for c in CASES if c[3] == "float"] + [
    ("F.rms_norm eps", lambda x, w: F.rms_norm(x, (3,), eps=w), 1e-3, "float"),
    ("F.poisson_nll_loss eps", lambda x, w: F.poisson_nll_loss(x, x, log_input=False, eps=w), 1e-3, "float"),
    ("F.instance_norm eps", lambda x, w: F.instance_norm(x[None], eps=w), 1e-3, "float"),
]


@pytest.mark.parametrize("name, call, value, kind", FLOAT_CASES, ids=[c[0] for c in FLOAT_CASES])
def test_a_float_parameter_refuses_a_complex_number(name, call, value, kind):
    # torch 2.13's parser: "pad(): argument 'value' (position 4) must be float, not complex" for a Python
    # complex, even 1+0j; a 0-d complex tensor is its real part, or "value cannot be converted to type
    # double without overflow".  The engine let a complex through: F.rms_norm(x, (3,), eps=1j) and
    # poisson_nll_loss(eps=1j) answered a complex result of a real input, F.pad failed deep in its op
    # ("Pad: attribute 'value' must be float | bool"), others with Python's comparison or float() errors.
    x = mg.tensor(X)
    for v in (complex(value, 1), complex(value, 0), np.complex128(value)):
        with pytest.raises(TypeError, match="must be float, not complex"):
            call(x, v)
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        call(x, mg.tensor(complex(value, 1)))
    got, expected = call(x, mg.tensor(complex(value, 0), dtype=mg.complex128)), call(x, value)
    for g, e in zip(_values(got), _values(expected)):
        np.testing.assert_array_equal(g, e)


def test_pad_names_the_position_of_its_value():
    with pytest.raises(TypeError, match=r"pad\(\): argument 'value' \(position 4\) must be float, not complex"):
        F.pad(mg.zeros(2, 3), (1, 1), value=1 + 2j)


def test_local_response_norm_keeps_pytorchs_complex_alpha():
    # torch 2.13's local_response_norm is Python arithmetic, which takes alpha=1j: a complex64 result
    y = F.local_response_norm(mg.ones(1, 2, 3), 2, alpha=1j)
    assert y.dtype == mg.complex64
