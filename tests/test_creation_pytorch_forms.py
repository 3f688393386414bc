"""PyTorch spellings of creation that ported programs use: one-element tensors inside the
lists ``mg.tensor`` reads, ``arange``'s values as PyTorch computes them, ``randint(high,
size)``, and ``mg.cuda``'s seeding functions (ignored without a GPU, as PyTorch's)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_one_element_tensors_in_a_list_are_numbers():
    r = mg.tensor([1.5, 2.0])
    # torch.tensor([r[0], r[1]]) -> tensor([1.5000, 2.0000]) (PyTorch's actor-critic: torch.tensor([R]))
    got = mg.tensor([r[0], r[1]])
    np.testing.assert_array_equal(got.numpy(), [1.5, 2.0])
    assert got.dtype == mg.float32
    np.testing.assert_array_equal(mg.tensor([[r.max()], [2.0]]).numpy(), [[2.0], [2.0]])
    assert tuple(mg.tensor([mg.ones(1)]).shape) == (1,)  # torch: torch.Size([1])
    assert mg.tensor([mg.tensor(3), 4]).dtype == mg.int64
    np.testing.assert_array_equal(mg.as_tensor((r[1], 7.0)).numpy(), [2.0, 7.0])


def test_the_values_are_copied_and_detached():
    x = mg.tensor(1.5, requires_grad=True)
    y = mg.tensor([x * 2, x])
    assert not y.requires_grad and y.grad_fn is None
    np.testing.assert_array_equal(y.numpy(), [3.0, 1.5])


def test_a_tensor_of_several_elements_in_a_list_is_pytorchs_error():
    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        mg.tensor([mg.ones(2), mg.ones(2)])
    with pytest.raises(TypeError):
        mg.tensor([object()])  # other mixed data: the error it was


def test_arange_values_are_start_plus_i_step_rounded_once():
    # torch.arange(0, 1, 0.1)[-1].item() == 0.8999999761581421 (NumPy's float32 arange: 0.90000004)
    assert mg.arange(0, 1, 0.1)[-1].item() == np.float32(0.9)
    rng = np.random.default_rng(0)
    for _ in range(100):
        start, step = float(rng.uniform(-5, 5)), float(rng.uniform(0.01, 1))
        stop = start + step * int(rng.integers(0, 40)) + float(rng.uniform(0, step))
        count = len(np.arange(start, stop, step))
        for dtype in ("float32", "float64"):
            want = (start + np.arange(count, dtype=np.float64) * step).astype(dtype)
            np.testing.assert_array_equal(mg.arange(start, stop, step, dtype=dtype).numpy(), want)
    np.testing.assert_array_equal(mg.arange(-1.0, -3.0, -0.5).numpy(), [-1.0, -1.5, -2.0, -2.5])
    # torch 2.13 reads the arguments in the integer dtype first: step 1.5 is 1
    np.testing.assert_array_equal(mg.arange(0, 5, 1.5, dtype="int64").numpy(), [0, 1, 2, 3, 4])
    assert mg.arange(5).dtype == mg.int64 and mg.arange(2.5).dtype == mg.float32


def test_randint_takes_pytorchs_two_argument_form():
    mg.manual_seed(0)
    a = mg.randint(5, (2, 3))  # torch.randint(high, size)
    mg.manual_seed(0)
    b = mg.randint(0, 5, (2, 3))
    assert a.shape == (2, 3) and a.dtype == mg.int64
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert ((a.numpy() >= 0) & (a.numpy() < 5)).all()
    assert mg.randint(5, size=(4,)).shape == (4,)
    assert mg.randint(2, 9, (3,)).shape == (3,)


@pytest.mark.skipif(mg.cuda.is_available(), reason="without a GPU only")
def test_cuda_seeds_are_ignored_without_a_gpu():
    mg.manual_seed(3)
    first = mg.rand(4)
    mg.manual_seed(3)
    for call in (lambda: mg.cuda.manual_seed(7), lambda: mg.cuda.manual_seed_all(7), mg.cuda.seed, mg.cuda.seed_all):
        call()
    np.testing.assert_array_equal(mg.rand(4).numpy(), first.numpy())  # the stream went on untouched
    assert mg.cuda.initial_seed() == mg.initial_seed() == 3


def test_the_legacy_constructor_reads_one_element_tensors_in_lists_too():
    r = mg.tensor([1.5, 2.0], dtype="float64")
    got = mg.Tensor([r[0], r[1]])  # torch.Tensor([r[0], r[1]]) -> tensor([1.5000, 2.0000]), float32
    assert got.dtype == mg.float32
    np.testing.assert_array_equal(got.numpy(), [1.5, 2.0])
    assert mg.LongTensor([mg.tensor(3), 4]).tolist() == [3, 4]
