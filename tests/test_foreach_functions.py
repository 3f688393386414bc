"""PyTorch's ``torch._foreach_*``: timm's NAdamW, Lion, Adan and Muon take their multi-tensor path by default
(``torch._foreach_mul_(exp_avgs, beta1)``), and stopped at the first step on the missing names. Each
function is the elementwise op tensor by tensor, with PyTorch's argument forms; values from torch 2.13."""
import math

import numpy as np
import pytest

import minigrad_ckpt as mg


def pair():
    return [mg.ones(2), mg.ones(3)]


def values(ts):
    return [t.tolist() for t in ts]


def test_in_place_forms_write_each_tensor_and_answer_the_list():
    a = pair()
    assert mg._foreach_add_(a, 1) is a and values(a) == [[2, 2], [2, 2, 2]]
    out = mg._foreach_addcdiv_(a, a, [mg.ones(2) * 2, mg.ones(3) * 2], mg.tensor([1.0, 3.0]))
    assert out is a and values(a) == [[3, 3], [5, 5, 5]]          # value=: one scalar per tensor
    mg._foreach_lerp_(a, [mg.zeros(2), mg.zeros(3)], 0.5)
    assert values(a) == [[1.5, 1.5], [2.5, 2.5, 2.5]]
    mg._foreach_maximum_(a, 2.0)                                    # a scalar: clamp_min
    assert values(a) == [[2, 2], [2.5, 2.5, 2.5]]
    mg._foreach_minimum_(a, [mg.full((2,), 1.0), mg.full((3,), 9.0)])
    assert values(a) == [[1, 1], [2.5, 2.5, 2.5]]
    mg._foreach_zero_(a)
    assert values(a) == [[0, 0], [0, 0, 0]]


def test_out_of_place_forms_answer_a_tuple_and_leave_the_inputs():
    a = pair()
    b = mg._foreach_add(a, [mg.ones(2), mg.ones(3)], alpha=2)
    assert isinstance(b, tuple) and values(b) == [[3, 3], [3, 3, 3]] and values(a) == [[1, 1], [1, 1, 1]]
    assert values(mg._foreach_mul(a, mg.tensor(3.0))) == [[3, 3], [3, 3, 3]]     # one tensor for all
    assert values(mg._foreach_div(a, [2.0, 4.0])) == [[0.5, 0.5], [0.25, 0.25, 0.25]]  # one scalar each
    powers = mg._foreach_pow(2.0, [mg.full((2,), 1.5), mg.full((1,), 2.5)])        # a scalar base
    np.testing.assert_allclose(powers[0].numpy(), [2.828427, 2.828427], rtol=1e-6)
    np.testing.assert_allclose(powers[1].numpy(), [5.656854], rtol=1e-6)
    norms = mg._foreach_norm([mg.full((2,), 1.5), mg.full((3,), 2.5)])
    np.testing.assert_allclose([float(n) for n in norms], [2.1213203, 4.3301270], rtol=1e-6)
    assert values(mg._foreach_sqrt([mg.full((2,), 4.0)])) == [[2, 2]]


def test_pytorchs_length_checks():
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 2 and 1"):
        mg._foreach_add_(pair(), [mg.ones(2)])
    with pytest.raises(RuntimeError, match="same number of elements as scalar list"):
        mg._foreach_add_(pair(), [1.0])


def test_a_foreach_adam_step_is_the_per_tensor_step():
    rng = np.random.default_rng(0)
    params = [mg.tensor(rng.standard_normal(s).astype(np.float32)) for s in ((3, 2), (4,))]
    grads = [mg.tensor(rng.standard_normal(p.shape).astype(np.float32)) for p in params]
    m, v = [mg.zeros_like(p) for p in params], [mg.zeros_like(p) for p in params]
    expected = []
    for p, g in zip(params, grads):
        m1, v1 = 0.1 * g, 0.001 * g * g
        expected.append(p.numpy() - 0.01 * (m1 / 0.1).numpy() / (np.sqrt((v1 / 0.001).numpy()) + 1e-8))
    mg._foreach_lerp_(m, grads, 0.1)
    mg._foreach_mul_(v, 0.999)
    mg._foreach_addcmul_(v, grads, grads, 0.001)
    denom = mg._foreach_add(mg._foreach_sqrt(mg._foreach_div(v, 0.001)), 1e-8)
    mg._foreach_addcdiv_(params, mg._foreach_div(m, 0.1), denom, value=-0.01)
    for p, e in zip(params, expected):
        np.testing.assert_allclose(p.numpy(), e, rtol=1e-5, atol=1e-6)


def test_in_place_forms_answer_the_very_sequence_given_and_a_scalar_base_has_nothing_to_write():
    # torch 2.13: the in-place forms answer the object given, a tuple too; _foreach_pow_(2, tensors) is a
    # TypeError (no tensor list to write), where it had answered new tensors and left the list as it was
    a = (mg.ones(2), mg.ones(3))
    for call in (lambda: mg._foreach_add_(a, 1), lambda: mg._foreach_sqrt_(a), lambda: mg._foreach_maximum_(a, 0.0),
                 lambda: mg._foreach_addcmul_(a, a, a, 0.5), lambda: mg._foreach_zero_(a)):
        assert call() is a
    exponents = [mg.full((2,), 3.0)]
    with pytest.raises(TypeError):
        mg._foreach_pow_(2, exponents)
    assert values(exponents) == [[3.0, 3.0]]
    assert values(mg._foreach_pow(2, exponents)) == [[8.0, 8.0]]


# torch 2.13's answers, pasted (torch is not needed to run these)
TORCH_FOREACH_NAMES_ABSENT_BEFORE = ("_foreach_clone", "_foreach_max", "_foreach_mm", "_foreach_powsum")


def test_every_foreach_name_of_torch_2_13_is_here():
    for name in TORCH_FOREACH_NAMES_ABSENT_BEFORE:
        assert callable(getattr(mg, name)), name


def test_powsum_is_the_literal_sum_of_powers_of_magnitudes():
    a = [mg.tensor([-1.0, 2.0]), mg.tensor([[3.0, -4.0]])]
    assert [t.item() for t in mg._foreach_powsum(a, 3)] == [9.0, 91.0]     # torch: (9., 91.)
    assert [t.item() for t in mg._foreach_powsum(a, 1)] == [3.0, 7.0]
    x = mg.tensor([0.0, -1.0, 2.0])
    assert mg._foreach_powsum([x], 0)[0].item() == 3.0                      # 0 ** 0 counts: torch 3. (norm: 2)
    assert mg._foreach_powsum([x], float("-inf"))[0].item() == float("inf")  # 0 ** -inf
    assert mg._foreach_powsum([x], 0.5)[0].item() == pytest.approx(2.414213562373095)
    assert mg._foreach_powsum([mg.tensor([1 + 1j, 2j])], 2)[0].item() == 6.0  # magnitudes: real
    assert mg._foreach_powsum([mg.zeros(0)], 2)[0].item() == 0.0
    for dtype in (mg.int64, mg.int32, mg.int8, mg.uint8, mg.bool):  # torch 2.13 names 'Long' for each
        with pytest.raises(NotImplementedError, match="\"powsum_cpu\" not implemented for 'Long'"):
            mg._foreach_powsum([mg.ones(2, dtype=dtype)], 2)


def test_max_clone_and_mm_answer_per_tensor_with_pytorchs_refusals():
    m = mg._foreach_max([mg.tensor([[1, 5], [2, 3]]), mg.tensor([True, False]), mg.tensor([1.0, float("nan")])])
    assert m[0].item() == 5 and m[1].item() is True and math.isnan(m[2].item())
    with pytest.raises(RuntimeError, match="cannot compute the maximum of an empty tensor"):
        mg._foreach_max([mg.ones(2), mg.zeros(0)])
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    mg._foreach_max([x])[0].backward()
    assert x.grad.tolist() == [0.0, 1.0]
    (c,) = mg._foreach_clone([x])
    assert c is not x and c.tolist() == [1.0, 2.0] and c.requires_grad
    a = mg.ones(2, 3, requires_grad=True)
    (p,) = mg._foreach_mm([a], [mg.ones(3, 2)])
    p.sum().backward()
    assert p.tolist() == [[3.0, 3.0], [3.0, 3.0]] and a.grad.tolist() == [[2.0] * 3] * 2
    with pytest.raises(RuntimeError, match="self and mat2 must have the same number of tensors"):
        mg._foreach_mm([mg.ones(2, 3)], [mg.ones(3, 2)] * 2)
    with pytest.raises(RuntimeError, match="self and mat2 must have the same number of tensors"):
        mg._foreach_mm([mg.ones(2, 3)], [])  # torch 2.13: the length check, not the empty list's
    with pytest.raises(RuntimeError, match="_foreach_mm requires non-empty tensor lists"):
        mg._foreach_mm([], [])  # torch 2.13's words for mm


@pytest.mark.parametrize("call", [
    lambda: mg._foreach_abs([]), lambda: mg._foreach_add_([], 1), lambda: mg._foreach_zero_([]),
    lambda: mg._foreach_norm([]), lambda: mg._foreach_copy_([], []), lambda: mg._foreach_addcmul_([], [], []),
    lambda: mg._foreach_lerp([], [], 0.5), lambda: mg._foreach_pow(2.0, []), lambda: mg._foreach_max([]),
    lambda: mg._foreach_clone([]), lambda: mg._foreach_powsum([], 2)])
def test_an_empty_list_is_refused_as_pytorch_refuses_it(call):
    with pytest.raises(RuntimeError, match="Tensor list must have at least one tensor."):
        call()
