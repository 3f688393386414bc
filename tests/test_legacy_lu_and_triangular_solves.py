"""PyTorch's deprecated ``torch.lu``, ``torch.lu_solve`` and ``torch.triangular_solve``, which PyTorch
2.13 still runs, answer as there: the right-hand side first, ``triangular_solve`` upper by default
with a cloned coefficient, gradients to both operands.  Found porting bayesiains/nflows
(``NaiveLinear.inverse_no_cache``: ``torch.lu`` + ``torch.lu_solve``) and VincentStimper/normalizing-flows
(``LULinearPermute.inverse``: ``torch.triangular_solve``), which stopped at an AttributeError.
The constants are PyTorch 2.13's answers (float64)."""

import numpy as np
import pytest

import minigrad_ckpt as mg

A = [[0.5, 2., 1.], [3., 1., -1.], [1., -2., 4.]]
B = [[1., 0.], [2., 1.], [-1., 3.]]
WEIGHTS = [[1., 2.], [3., 4.], [5., 6.]]


def test_lu_then_lu_solve_answer_and_gradients_as_pytorchs():
    a = mg.tensor(A, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(B, dtype=mg.float64, requires_grad=True)
    answer = mg.lu(a)
    assert type(answer) is tuple  # torch.lu's is a plain tuple
    lu, pivots = answer
    np.testing.assert_allclose(lu.detach().numpy(), [[3.0, 1.0, -1.0],
                                                     [0.3333333333333333, -2.3333333333333335, 4.333333333333333],
                                                     [0.16666666666666666, -0.7857142857142856, 4.57142857142857]],
                               rtol=1e-13)
    assert pivots.dtype == mg.int32 and pivots.tolist() == [2, 3, 3]
    x = mg.lu_solve(b, lu, pivots)
    np.testing.assert_allclose(x.detach().numpy(), [[0.46875, 0.59375], [0.4531250000000001, -0.35937499999999994],
                                                    [-0.14062499999999992, 0.421875]], rtol=1e-13, atol=1e-15)
    ga, gb = mg.autograd.grad((x * mg.tensor(WEIGHTS, dtype=mg.float64)).sum(), (a, b))
    np.testing.assert_allclose(ga.numpy(), [[-2.7246093750000004, -0.00878906250000057, -0.8701171875000003],
                                            [0.1542968750000001, 0.09082031250000003, -0.008789062499999967],
                                            [-0.7568359375, -0.0024414062500002255, -0.2416992187500001]],
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gb.numpy(), [[2.25, 2.8125], [-0.25, -0.0625], [0.625, 0.78125]], rtol=1e-12, atol=1e-14)


def test_lu_of_a_singular_or_rectangular_matrix_factors_and_get_infos_names_the_zero_pivot():
    lu, pivots, info = mg.lu(mg.tensor([[1., 2.], [2., 4.]], dtype=mg.float64), get_infos=True)
    assert lu.tolist() == [[2.0, 4.0], [0.5, 0.0]] and pivots.tolist() == [2, 2] and info.item() == 2
    assert type(mg.lu(mg.eye(2), get_infos=True)).__name__ == "_lu_with_info"
    lu, pivots = mg.lu(mg.tensor([[1., 2.], [3., 4.], [5., 7.]], dtype=mg.float64))
    np.testing.assert_allclose(lu.numpy(), [[5., 7.], [0.2, 0.6], [0.6, -1 / 3]], rtol=1e-13)
    assert pivots.tolist() == [3, 3]


R = [[2., 1., 0.5], [0.3, 3., 1.], [0.1, 0.2, 4.]]
RHS = [[1., 2.], [3., 4.], [5., 6.]]
# keywords -> (solution, d/dRHS, d/dR) of sum(solution * arange(6).reshape(3, 2)) + sum(cloned_coefficient)
TRIANGULAR = [
    ({}, [[-0.10416666666666663, 0.20833333333333337], [0.5833333333333333, 0.8333333333333333], [1.25, 1.5]],
     [[0.0, 0.5], [0.6666666666666666, 0.8333333333333333], [0.8333333333333334, 0.9791666666666667]],
     [[0.8958333333333333, 0.5833333333333334, 0.25], [1.0, -0.08333333333333326, -1.083333333333333],
      [1.0, 1.0, -1.510416666666667]]),
    ({"upper": False}, [[0.5, 1.0], [0.95, 1.2333333333333334], [1.19, 1.4133333333333333]],
     [[-0.13999999999999999, 0.3], [0.6, 0.9166666666666666], [1.0, 1.25]],
     [[0.77, 1.0, 1.0], [-0.21666666666666656, -0.7005555555555556, 1.0],
      [-0.75, -1.4916666666666667, -1.9566666666666666]]),
    ({"transpose": True}, [[0.5, 1.0], [0.8333333333333333, 1.0], [0.9791666666666667, 1.125]],
     [[-0.41666666666666663, -0.10416666666666663], [0.3333333333333333, 0.5833333333333333], [1.0, 1.25]],
     [[1.3125, 0.2500000000000001, -0.75], [1.0, 0.13888888888888906, -1.083333333333333],
      [1.0, 1.0, -1.385416666666667]]),
    ({"unitriangular": True}, [[0.5, 1.0], [-2.0, -2.0], [5.0, 6.0]],
     [[0.0, 1.0], [2.0, 2.0], [2.0, 2.5]], [[1.0, 3.0, -5.0], [1.0, 1.0, -21.0], [1.0, 1.0, 1.0]]),
    ({"upper": False, "transpose": True, "unitriangular": True},
     [[-0.09999999999999998, 0.5599999999999999], [2.0, 2.8], [5.0, 6.0]],
     [[0.0, 1.0], [2.0, 2.7], [3.6, 4.359999999999999]], [[1.0, 1.0, 1.0], [-1.8, 1.0, 1.0], [-5.0, -25.2, 1.0]]),
]


@pytest.mark.parametrize("keywords, solution, grad_rhs, grad_coefficient", TRIANGULAR)
def test_triangular_solve_right_hand_side_first_with_a_cloned_coefficient(keywords, solution, grad_rhs,
                                                                          grad_coefficient):
    r = mg.tensor(R, dtype=mg.float64, requires_grad=True)
    b = mg.tensor(RHS, dtype=mg.float64, requires_grad=True)
    answer = mg.triangular_solve(b, r, **keywords)
    assert type(answer).__name__ == "triangular_solve"
    np.testing.assert_allclose(answer.solution.detach().numpy(), solution, rtol=1e-13, atol=1e-15)
    assert answer.cloned_coefficient.equal(r) and answer.cloned_coefficient.requires_grad
    loss = (answer.solution * mg.arange(6.).reshape(3, 2)).sum() + answer.cloned_coefficient.sum()
    gb, gr = mg.autograd.grad(loss, (b, r))
    np.testing.assert_allclose(gb.numpy(), grad_rhs, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gr.numpy(), grad_coefficient, rtol=1e-13, atol=1e-14)


def test_triangular_solve_refuses_two_dtypes_in_pytorchs_words():
    with pytest.raises(RuntimeError, match="Expected b and A to have the same dtype, but found b of type Float "
                                           "and A of type Double instead."):
        mg.triangular_solve(mg.ones(3, 2), mg.ones(3, 3, dtype=mg.float64))


def test_the_tensor_methods_are_the_functions():
    # torch 2.13 still offers A.lu(), b.lu_solve(LU, pivots) and b.triangular_solve(A) as methods
    # (normflows' Glow 1x1 convolution calls Q.lu()); they are the functions, self first
    a = mg.tensor([[4.0, 3.0], [6.0, 3.0]], dtype=mg.float64)
    b = mg.tensor([[1.0], [2.0]], dtype=mg.float64)
    lu, pivots = a.lu()
    ref_lu, ref_pivots = mg.lu(a)
    assert mg.equal(lu, ref_lu).all() and pivots.tolist() == ref_pivots.tolist() == [2, 2]
    assert b.lu_solve(lu, pivots).tolist() == mg.lu_solve(b, lu, pivots).tolist()
    x = b.lu_solve(lu, pivots)
    assert (a @ x - b).abs().max().item() < 1e-14
    upper = mg.tensor([[2.0, 1.0], [0.0, 4.0]], dtype=mg.float64)
    solved = b.triangular_solve(upper)
    assert solved.solution.tolist() == [[0.25], [0.5]] and solved.cloned_coefficient.tolist() == upper.tolist()


def test_the_right_hand_side_keyword_is_input_as_pytorchs():
    # torch 2.13: torch.triangular_solve(input=b, A=A) and torch.lu_solve(input=b, LU_data=..., LU_pivots=...)
    # run; a keyword b= is its TypeError (the docs' name is not the signature's)
    a, b = mg.tensor(A, dtype=mg.float64), mg.tensor(B, dtype=mg.float64)
    assert mg.triangular_solve(input=b, A=a).solution.tolist() == mg.triangular_solve(b, a).solution.tolist()
    lu, pivots = mg.lu(a)
    assert mg.lu_solve(input=b, LU_data=lu, LU_pivots=pivots).tolist() == mg.lu_solve(b, lu, pivots).tolist()


@pytest.mark.parametrize("solve, words", [
    (lambda a, v: mg.triangular_solve(v, a), "torch.triangular_solve: Expected b to have at least 2 dimensions, "
                                             "but it has 1 dimensions instead"),
    (lambda a, v: mg.triangular_solve(a, v), "torch.triangular_solve: Expected A to have at least 2 dimensions, "
                                             "but it has 1 dimensions instead"),
    (lambda a, v: v.triangular_solve(a), "torch.triangular_solve: Expected b to have at least 2 dimensions"),
    (lambda a, v: mg.lu_solve(v, *mg.lu(a)), "linalg.lu_solve: The input tensor B must have at least 2 dimensions."),
    (lambda a, v: mg.linalg.lu_solve(*mg.linalg.lu_factor(a), v),
     "linalg.lu_solve: The input tensor B must have at least 2 dimensions."),
])
def test_a_vector_right_hand_side_is_refused_as_pytorch_refuses_it(solve, words):
    # (torch 2.13's words; triangular_solve answered a vector b, lu_solve said an axis was out of range)
    a, v = mg.tensor(A, dtype=mg.float64), mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)
    with pytest.raises(RuntimeError) as caught:
        solve(a, v)
    assert str(caught.value).startswith(words)
