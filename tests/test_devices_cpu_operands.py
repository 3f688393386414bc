"""The CPU-scalar rule and CPU index tensors in the functions that compute on arrays themselves.

PyTorch lets a zero-dim CPU tensor meet tensors of another device as a number does, and lets a
CPU tensor of any shape index a GPU tensor (``gpu_x[torch.arange(3)]``, ``for i in
torch.arange(n): gpu_x[i]``; "indices should be either on cpu or on the same device as the
indexed tensor").  ``tape.apply`` moved the CPU scalar, but functions that read their operands'
arrays without it did not: ``gpu_int & cpu0d``, ``mg.isclose(gpu, cpu0d)``, ``mg.isin`` and
``mg.allclose`` crashed mixing host and device arrays, ``mg.nextafter(cpu0d, gpu)`` answered on
the CPU, and indexing a device tensor with a CPU index tensor (and so ``fill_diagonal_`` on any
device tensor, which indexes with CPU tensors) was refused.  Each answer here is the CPU's, bit
for bit, on the device's side.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")

DEVICES = ["strict", "strict-f32"]
X = [[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]]
I = [[1, 2, 3], [4, 5, 6]]


def _host(t):
    return t.to("cpu").numpy() if isinstance(t, mg.Tensor) else t


def _same_on_the_device(fn, device, *args):
    """``fn`` on the CPU, then with the tensors among ``args`` with elements moved to ``device``
    (0-d CPU tensors stay where they are): the same dtype and values, the result on ``device``."""
    want = fn(*args)
    moved = [a.to(device) if isinstance(a, mg.Tensor) and a.ndim else a for a in args]
    got = fn(*moved)
    if isinstance(want, mg.Tensor):
        assert got.device == mg.device(device) and got.dtype == want.dtype
    np.testing.assert_array_equal(_host(got), _host(want))
    return got


BITWISE = [
    lambda a, b: a & b, lambda a, b: a | b, lambda a, b: a ^ b, lambda a, b: b & a, lambda a, b: b ^ a,
    mg.bitwise_and, mg.bitwise_or, mg.bitwise_xor,
    lambda a, b: a.clone().bitwise_and_(b), lambda a, b: a.clone().bitwise_or_(b),
    lambda a, b: a.clone().__ixor__(b),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn", BITWISE)
@pytest.mark.parametrize("scalar", [mg.tensor(6), mg.tensor(True), mg.tensor(3, dtype="uint8")])
def test_bitwise_ops_take_a_cpu_scalar_tensor(device, fn, scalar):
    # before: StrictDeviceError 'operator and_: a host (NumPy) array mixed with strict-device arrays'
    _same_on_the_device(fn, device, mg.tensor(I), scalar)
    _same_on_the_device(fn, device, mg.tensor(I) > 2, mg.tensor(False))


@pytest.mark.parametrize("device", DEVICES)
def test_bitwise_ops_refuse_a_cpu_tensor_with_elements(device):
    with pytest.raises(RuntimeError, match="bitwise_and: expected all tensors on the same device"):
        mg.tensor(I, device=device) & mg.tensor([1, 2, 3])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("scalar", [mg.tensor(3.0, dtype="float32"), mg.tensor(4, dtype="int32")])
def test_closeness_and_membership_take_a_cpu_scalar_tensor(device, scalar):
    # before: StrictDeviceError 'xp.result_type: a host (NumPy) array mixed with strict-device arrays'
    x = mg.tensor(X, dtype=scalar.dtype)                  # (torch.isclose wants one dtype)
    _same_on_the_device(lambda a, b: mg.isclose(a, b, atol=1.0), device, x, scalar)
    _same_on_the_device(lambda a, b: mg.isclose(b, a), device, x, scalar)
    _same_on_the_device(lambda a, b: a.isclose(b, rtol=0.5), device, x, scalar)
    _same_on_the_device(lambda a, b: mg.isin(a, b), device, mg.tensor(I, dtype="int32"), mg.tensor(4, dtype="int32"))
    assert mg.allclose(mg.full((2, 3), 3, dtype=scalar.dtype, device=device), scalar) is (scalar.item() == 3)
    with pytest.raises(RuntimeError, match="isclose: expected all tensors on the same device"):
        mg.isclose(x.to(device), mg.tensor([3.0, 3.0, 3.0]))


@pytest.mark.parametrize("device", DEVICES)
def test_host_computed_pairs_answer_on_the_device(device):
    # before: mg.nextafter(cpu0d, device_x) answered on the CPU
    s = mg.tensor(0.0, dtype="float32")
    x = mg.tensor(X, dtype="float32")
    for fn in (mg.nextafter, mg.fmax, mg.fmin, mg.heaviside, mg.floor_divide):
        _same_on_the_device(fn, device, s, x)
        _same_on_the_device(fn, device, x, s)


@pytest.mark.parametrize("device", DEVICES)
def test_a_cpu_index_tensor_indexes_a_device_tensor(device):
    # before: RuntimeError 'index is on cpu, tensor is on strict:0' (PyTorch moves a CPU index to the GPU)
    x = mg.tensor(X, dtype="float32")
    get = [lambda a: [a[i] for i in mg.arange(2)], lambda a: a[mg.tensor([1, 0, 1])],
           lambda a: a[:, mg.tensor([[2], [0]])], lambda a: a[mg.tensor(1), mg.tensor([2, 2])],
           lambda a: a[mg.tensor([True, False])], lambda a: a[mg.tensor(True)], lambda a: a[mg.tensor([[1]]), 1:]]
    for fn in get:
        want, got = fn(x), fn(x.to(device))
        for w, g in zip(want if isinstance(want, list) else [want], got if isinstance(got, list) else [got]):
            assert g.device == mg.device(device)
            np.testing.assert_array_equal(_host(g), w.numpy())

    def written(a):
        a = a.clone()
        a[mg.tensor([0, 1]), mg.tensor([2, 0])] = mg.tensor(7.0, dtype="float32")  # a CPU scalar value too
        a[mg.tensor(1)] = 5.0
        return a

    _same_on_the_device(written, device, x)
    _same_on_the_device(lambda a: a.clone().index_put_((mg.tensor([1]),), mg.tensor(-1.0)), device, x)


@pytest.mark.parametrize("device", DEVICES)
def test_indexing_with_a_cpu_index_is_differentiable_and_checked(device):
    x = mg.tensor(X, dtype="float32", device=device, requires_grad=True)
    (x[mg.tensor([1, 1, 0])] * mg.tensor(2.0)).sum().backward()
    assert x.grad.device == x.device
    np.testing.assert_array_equal(_host(x.grad), [[2.0] * 3, [4.0] * 3])
    with pytest.raises(IndexError, match="out of bounds"):   # checked, though a device wraps indices silently
        x[mg.tensor([2])]
    with pytest.raises(RuntimeError, match="indices should be either on cpu or on the same device"):
        mg.ones(3)[mg.tensor([0], device=device)]            # a device index into a CPU tensor: PyTorch refuses it
    with pytest.raises(RuntimeError, match="take"):
        mg.take(x, mg.tensor([0]))                           # torch.take wants one device, unlike x[i]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("value", [2.5, mg.tensor(2.5), mg.tensor(3)])
def test_fill_diagonal_on_a_device_tensor(device, value):
    # before: RuntimeError 'index is on cpu, tensor is on strict:0' for any device tensor
    _same_on_the_device(lambda a: a.clone().fill_diagonal_(value), device, mg.zeros(3, 3))
    _same_on_the_device(lambda a: a.clone().fill_diagonal_(value, wrap=True), device, mg.zeros(7, 3))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_product_of_the_wrong_rank_is_pytorchs_runtime_error(device):
    # before: ValueError (torch: RuntimeError 'both arguments to matmul need to be at least 1D, but they are
    # 2D and 0D'); a CPU scalar tensor meets a device matrix as a number, but a matmul takes no number
    m, v, s = mg.ones(3, 3, device=device), mg.ones(3, device=device), mg.tensor(2.0)
    for call, message in [(lambda: m @ s, "need to be at least 1D, but they are 2D and 0D"),
                          (lambda: mg.matmul(s, v), "they are 0D and 1D"),
                          (lambda: m @ mg.ones(2, device=device), "not aligned"),
                          (lambda: m.mm(v), "mm: expects 2-D and 2-D"), (lambda: m.mv(s), "mv: expects"),
                          (lambda: v.dot(s), "dot: expects 1-D and 1-D"), (lambda: m.bmm(m), "bmm: expects"),
                          (lambda: mg.addmv(v, m, s), "addmv: expected a 1-D tensor, got 0-D")]:
        with pytest.raises(RuntimeError, match=message) as error:
            call()
        assert isinstance(error.value, ValueError)                 # (what the engine raised before)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_subtracting_two_bool_tensors_is_pytorchs_runtime_error(device):
    # before: NumPy's TypeError 'numpy boolean subtract ... is not supported' from the operators' fast path
    mask = mg.tensor([True, False], device=device)
    for other in (mg.tensor(True), mg.tensor([False, True], device=device)):
        for a, b in ((mask, other), (other, mask)):
            with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
                a - b
            with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
                mg.subtract(a, b)  # (torch.subtract's words too)


@pytest.mark.parametrize("device", DEVICES)
def test_a_basic_index_write_takes_a_value_from_any_device_as_pytorchs_copy(device):
    # before: RuntimeError '__setitem__: value is on cpu, tensor is on strict:0'; PyTorch writes x[0] = v,
    # x[:, 1:] = v, x[...] = v through copy_, which takes v from any device (an index array: a 0-d v only)
    row, block = mg.tensor([1.0, 2.0, 3.0], dtype="float32"), mg.tensor([[7.0, 8.0], [9.0, 10.0]], dtype="float32")

    def written(a, b, c):
        a = a.clone()
        a[0] = b                                   # (a 1-d row from the other device)
        a[:, 1:] = c
        a[1, ...] = mg.tensor(-1.0, dtype="float32", device=b.device)
        return a

    for dev_side in ("target", "value"):
        x = mg.zeros(2, 3, dtype="float32", device=device if dev_side == "target" else "cpu")
        other = "cpu" if dev_side == "target" else device
        got = written(x, row.to(other), block.to(other))
        assert got.device == x.device
        np.testing.assert_array_equal(_host(got), [[1.0, 7.0, 8.0], [-1.0, -1.0, -1.0]])
    x = mg.zeros(2, 3, dtype="float32", device=device)
    with pytest.raises(RuntimeError, match="value is on cpu"):
        x[mg.tensor([0], device=device)] = row                    # index_put_: a value with elements must be here
    x[mg.tensor([0], device=device), 1] = mg.tensor(4.0, dtype="float32")
    assert _host(x)[0, 1] == 4.0


@pytest.mark.parametrize("device", DEVICES)
def test_a_row_written_from_another_device_keeps_its_gradient_and_tangent(device):
    w = mg.tensor([1.0, 2.0, 3.0], dtype="float32", requires_grad=True)
    x = mg.zeros(2, 3, dtype="float32", device=device)
    x[1] = w * 2
    (x * x).sum().backward()
    assert w.grad.device == w.device
    np.testing.assert_array_equal(w.grad.numpy(), [8.0, 16.0, 24.0])

    def placed(a):
        out = mg.zeros(2, 3, dtype="float32", device=device)
        out[1] = a * 2
        return out

    _, dy = mg.func.jvp(placed, (w.detach(),), (mg.ones(3, dtype="float32"),))
    assert dy.device == mg.device(device)
    np.testing.assert_array_equal(_host(dy), [[0.0] * 3, [2.0] * 3])


@pytest.mark.parametrize("device", DEVICES)
def test_fill_values_are_zero_dim_tensors_of_any_device(device):
    # before: x.fill_(mg.tensor([1., 2., 3.])) wrote the row (torch: 'fill_ only supports 0-dimension value
    # tensor'); a device 0-d value into a CPU tensor's fill_/masked_fill/index_fill was an error (torch: item())
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        mg.zeros(3).fill_(mg.tensor([1.0, 2.0, 3.0]))
    value = mg.tensor(2.5, dtype="float32", device=device)
    for got, want in [(mg.zeros(3).fill_(value), [2.5] * 3),
                      (mg.zeros(3).masked_fill(mg.tensor([True, False, True]), value), [2.5, 0.0, 2.5]),
                      (mg.zeros(3).index_fill(0, mg.tensor([1]), value), [0.0, 2.5, 0.0])]:
        assert got.device == mg.device("cpu")
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("device", DEVICES)
def test_type_as_and_type_move_to_the_types_device_as_pytorchs(device):
    # before: mg.zeros(2).type_as(gpu_x) stayed on the CPU (Lightning's device-agnostic idiom; torch:
    # self.to(other.options())), gpu_x.type() named no device and gpu_x.type('torch.FloatTensor') stayed put
    x = mg.tensor([1.0, 2.0], dtype="float32", device=device, requires_grad=True)
    made = mg.zeros(2, dtype="float64").type_as(x)
    assert (made.device, made.dtype) == (x.device, x.dtype)
    back = x.type_as(mg.zeros(1, dtype="float64"))
    assert (back.device, back.dtype) == (mg.device("cpu"), np.float64)
    (back * 3).sum().backward()                                  # a recorded move and cast
    assert x.grad.device == x.device and _host(x.grad).tolist() == [3.0, 3.0]
    assert x.type() == f"minigrad_ckpt.{device}.FloatTensor" and mg.zeros(1).type() == "minigrad_ckpt.FloatTensor"
    assert x.type("torch.DoubleTensor").device == mg.device("cpu")
    assert x.type(mg.LongTensor).device == mg.device("cpu")      # a legacy class is a CPU type
    assert x.type(mg.Tensor).device == mg.device("cpu") == x.type("torch.Tensor").device  # so is torch.Tensor
    assert mg.zeros(1).type(f"torch.{device}.LongTensor").device == x.device
    assert x.type(mg.float16).device == x.device                 # a dtype keeps the device


@pytest.mark.parametrize("device", DEVICES)
def test_pytorchs_device_spellings(device):
    # before: mg.device("cuda", local_rank) and mg.device("cpu:0") were errors, as were
    # x.cuda(gpu, non_blocking=True) (the ImageNet example's loader loop) and x.cpu(memory_format=...)
    assert mg.device(device, 0) == mg.device(f"{device}:0") and mg.device("cpu:0") == mg.device("cpu")
    assert mg.device("cpu", 0) == mg.device("cpu")
    with pytest.raises(RuntimeError, match="must not include an index"):
        mg.device(f"{device}:0", 0)
    with pytest.raises(RuntimeError, match="must not be negative"):
        mg.device(device, -1)
    cpu_norm = mg.tensor([3.0, 4.0]).norm()
    with pytest.raises(RuntimeError, match="must not be negative.*x.device"):  # SimCLR's LARS on a CPU
        mg.Tensor([1.0]).to(cpu_norm.get_device())  # (it said "Invalid device string: 'cuda:-1'")
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    moved = x.cuda(device, non_blocking=True)                  # (a device argument names any device)
    assert moved.device == mg.device(device)
    back = moved.cpu(memory_format=mg.contiguous_format)
    (back * 2).sum().backward()
    assert back.device == mg.device("cpu") and x.grad.tolist() == [2.0, 2.0]
    if not mg.cuda.is_available():
        with pytest.raises(RuntimeError, match="needs CuPy"):   # the keywords taken, the GPU missing
            x.cuda(non_blocking=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam", "ASGD",
                                  "Rprop", "Adadelta"])
def test_a_tensor_learning_rate_on_the_cpu_steps_device_parameters(device, name):
    # before: RuntimeError 'subtract_: value is on cpu, tensor is on strict:0' (lr * a device array made a CPU
    # tensor: the array was converted to lr's device); torch takes lr=torch.tensor(0.01) beside GPU parameters
    def three_steps(dev):
        p = mg.nn.Parameter(mg.tensor([1.0, -2.0, 3.0], dtype="float32", device=dev))
        opt = getattr(mg.optim, name)([p], lr=mg.tensor(0.1, dtype="float32"),
                                      **({"momentum": 0.9} if name == "SGD" else {}))
        for _ in range(3):
            opt.zero_grad()
            (p * p * mg.tensor(1.5, dtype="float32")).sum().backward()
            opt.step()
        assert p.device == mg.device(dev)
        return _host(p.detach())

    np.testing.assert_array_equal(three_steps(device), three_steps("cpu"))


@pytest.mark.parametrize("device", DEVICES)
def test_losses_take_a_cpu_scalar_target_and_refuse_other_cpu_tensors_in_pytorchs_words(device):
    # before: mse_loss(gpu_x, cpu0d) raised (the target was broadcast before it met x, so it was no longer
    # a scalar; torch: the CPU scalar meets x, after its broadcasting warning); a CPU weight or target of
    # cross_entropy/nll_loss, or CPU indices into a device embedding, crashed mixing host and device arrays
    F = mg.nn.functional
    x = mg.tensor([[0.2, 0.7, 0.4], [0.9, 0.1, 0.6]], dtype="float32")
    s = mg.tensor(0.5, dtype="float32")
    for loss in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss, F.kl_div):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (PyTorch's warning about the target's size)
            _same_on_the_device(loss, device, x, s)
    t = mg.tensor([2, 0])
    for call, name in [(lambda: F.cross_entropy(x.to(device), t.to(device), weight=mg.ones(3)), "nll_loss"),
                       (lambda: F.nll_loss(x.to(device), t.to(device), weight=mg.ones(3)), "nll_loss"),
                       (lambda: F.cross_entropy(x.to(device), t), "cross_entropy"),
                       (lambda: F.nll_loss(x.to(device), t), "nll_loss"),
                       (lambda: F.embedding(t, x.to(device)), "embedding")]:
        with pytest.raises(RuntimeError, match=f"{name}: expected all tensors on the same device"):
            call()


@pytest.mark.parametrize("device", DEVICES)
def test_clip_grad_value_takes_a_tensor_bound(device):
    # before: TypeError "operand 'Tensor' does not support ufuncs" (torch: clip_value = float(clip_value))
    p = mg.nn.Parameter(mg.tensor([3.0, -4.0, 0.5], dtype="float32", device=device))
    p.grad = mg.tensor([3.0, -4.0, 0.5], dtype="float32", device=device)
    mg.nn.utils.clip_grad_value_([p], mg.tensor(1.0))
    assert p.grad.device == p.device and _host(p.grad).tolist() == [1.0, -1.0, 0.5]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_zero_dim_integer_tensor_is_an_int_where_pytorch_takes_one(device):
    # before: x.repeat(n), x.split(n), x.unsqueeze(t), x.sum(t), x.roll(n), x.transpose(t0, t1),
    # x.softmax(t) raised TypeError ('len() of a 0-d tensor', 'axis must be an int'); PyTorch reads a
    # zero-dim integer tensor (a CPU one beside tensors of any device) as the int (__index__)
    x = mg.arange(6.0, device=device).reshape(2, 3)
    n, zero, one = mg.tensor(2), mg.tensor(0), mg.tensor(1)
    for got, want in [(x.repeat(n, 1), x.repeat(2, 1)), (x.sum(one), x.sum(1)), (x.sum((one,)), x.sum(1)),
                      (x.unsqueeze(zero), x.unsqueeze(0)), (x.roll(n), x.roll(2)), (x.roll(n, one), x.roll(2, 1)),
                      (x.transpose(zero, one), x.transpose(0, 1)), (x.softmax(one), x.softmax(1)),
                      (x.split(n, one)[0], x.split(2, 1)[0]), (x.flatten(zero), x.flatten(0)),
                      (x[:1].expand(n, 3), x[:1].expand(2, 3))]:
        assert got.shape == want.shape and got.device == x.device
        np.testing.assert_array_equal(_host(got), _host(want))
    with pytest.raises(TypeError):
        x.sum(mg.tensor(1.0))                                    # a float tensor is no dim, as in PyTorch


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_zero_dim_tensor_is_a_number_where_pytorch_takes_a_scalar(device):
    # before: TypeError from F.pad(x, p, value=t), F.hardtanh(x, t0, t1), mg.round(x, decimals=t), and
    # x.scatter_(dim, i, value=t) read the tensor as a source; torch: [[2.5, 1, -2, 3, 2.5], ...],
    # [[2.5, 2.5, 3], [3.5, 3.5, 2.5]], x.round(decimals=1), [[2.5, -2, 3], [4, 2.5, -6]]
    F = mg.nn.functional
    x = mg.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], device=device)
    low, high = mg.tensor(2.5), mg.tensor(3.5)
    np.testing.assert_array_equal(_host(F.pad(x, (1, 1), value=low)),
                                  [[2.5, 1.0, -2.0, 3.0, 2.5], [2.5, 4.0, 5.0, -6.0, 2.5]])
    np.testing.assert_array_equal(_host(F.hardtanh(x, low, high)), [[2.5, 2.5, 3.0], [3.5, 3.5, 2.5]])
    np.testing.assert_array_equal(_host(mg.round(x / 3, decimals=mg.tensor(1))), _host(mg.round(x / 3, decimals=1)))
    written = x.clone().scatter_(1, mg.tensor([[0], [1]], device=device), value=low)
    np.testing.assert_array_equal(_host(written), [[2.5, -2.0, 3.0], [4.0, 2.5, -6.0]])


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_isclose_of_two_dtypes_is_pytorchs_error(device):
    # before: an answer computed in the promoted dtype (float64 on a float32 device: a hidden upcast);
    # torch.isclose(float32, int64) -> RuntimeError 'Float did not match Long'
    x = mg.ones(3, dtype="float32", device=device)
    for other, message in [(mg.tensor(1), "Float did not match Long"),
                           (mg.ones(3, dtype="int32", device=device), "Float did not match Int"),
                           (mg.ones(3, dtype="float16", device=device), "Float did not match Half")]:
        with pytest.raises(RuntimeError, match=message):
            mg.isclose(x, other)
        with pytest.raises(RuntimeError, match=message):
            mg.allclose(x, other)
    assert mg.allclose(x, 1.0) and mg.isclose(x, mg.tensor(1.0)).all()   # a number takes x's dtype
