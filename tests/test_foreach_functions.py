"""PyTorch's ``torch._foreach_*``: timm's NAdamW, Lion, Adan and Muon take their multi-tensor path by default
(``torch._foreach_mul_(exp_avgs, beta1)``), and stopped at the first step on the missing names. Each
function is the elementwise op tensor by tensor, with PyTorch's argument forms; values from torch 2.13."""
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
