"""``mg.func.vmap`` over an empty batch: the shapes, dtypes and history PyTorch's vmap gives.

PyTorch runs the ops on the empty batch itself; ``vmap`` here runs the function on one stand-in
example to learn its outputs.  That example was zeros, so a function that refuses a singular
matrix raised on a batch with nothing in it -- ``vmap(mg.linalg.inv)(mg.zeros(0, 3, 3))`` was a
LinAlgError where torch 2.13 returns an empty (0, 3, 3) tensor -- and the stand-in was a fresh
constant, so the output of an input that requires grad did not require grad (torch's does, and
its backward gives the input an empty gradient).  Torch 2.13's answers are quoted beside each case.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

F = mg.func

# (function, in_dims, the inputs' shapes, torch 2.13's output shape)
SINGULAR_AT_ZERO = {
    "inv": (mg.linalg.inv, 0, [(0, 3, 3)], (0, 3, 3)),
    "cholesky": (mg.linalg.cholesky, 0, [(0, 3, 3)], (0, 3, 3)),
    "solve": (mg.linalg.solve, (0, None), [(0, 3, 3), (3,)], (0, 3)),
    "det_of_inv": (lambda a: mg.linalg.det(mg.linalg.inv(a)), 0, [(0, 2, 2)], (0,)),
    "grad_of_inv": (F.grad(lambda a: mg.linalg.inv(a).sum()), 0, [(0, 3, 3)], (0, 3, 3)),
    "jacrev_of_solve": (F.jacrev(lambda b, a: mg.linalg.solve(a, b)), (0, None), [(0, 2), (2, 2)], (0, 2, 2)),
    "checkpointed_inv": (lambda a: mg.checkpoint.checkpoint(mg.linalg.inv, a, use_reentrant=False), 0,
                         [(0, 3, 3)], (0, 3, 3)),
    "batch_in_dim_1": (mg.linalg.inv, 1, [(3, 0, 3)], (0, 3, 3)),
}



@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", SINGULAR_AT_ZERO)
def test_a_function_refusing_zeros_maps_over_an_empty_batch(name, dtype, device):
    f, in_dims, shapes, want = SINGULAR_AT_ZERO[name]
    args = [mg.zeros(*s, dtype=dtype, device=device) if 0 in s else  # the batched ones, empty
            mg.eye(s[0], dtype=dtype, device=device) if len(s) == 2 else mg.ones(*s, dtype=dtype, device=device)
            for s in shapes]
    out = F.vmap(f, in_dims=in_dims)(*args)
    assert out.shape == want and out.dtype == dtype and out.device == args[0].device


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("out_dims", [0, 1, -1])
def test_the_empty_output_keeps_the_inputs_history(dtype, out_dims):
    # torch: y = vmap(lambda r: r.sin() * 2, out_dims=d)(x) with x (0, 3) requiring grad:
    # y.requires_grad True; y.sum().backward() leaves x.grad zeros of shape (0, 3)
    x = mg.zeros(0, 3, dtype=dtype).requires_grad_()
    y = F.vmap(lambda r: r.sin() * 2, out_dims=out_dims)(x)
    assert y.requires_grad and y.shape == ((0, 3) if out_dims == 0 else (3, 0))
    y.sum().backward()
    assert x.grad is not None and x.grad.shape == (0, 3) and x.grad.dtype == dtype
    g = F.grad(lambda a: F.vmap(mg.linalg.inv)(a).sum())(mg.zeros(0, 2, 2, dtype=dtype))
    assert g.shape == (0, 2, 2) and g.dtype == dtype


def test_integer_inputs_and_outputs_of_an_empty_batch():
    # torch: vmap(lambda x, i: x[i])(zeros(0, 3), zeros(0, dtype=int64)) -> shape (0,) float32
    got = F.vmap(lambda x, i: x[i])(mg.zeros(0, 3), mg.zeros(0, dtype=mg.int64))
    assert got.shape == (0,) and got.dtype == mg.float32
    assert F.vmap(lambda x: x.argmax())(mg.zeros(0, 3)).dtype == mg.int64


def test_a_function_that_refuses_every_stand_in_raises_its_refusal_of_zeros():
    def refuses(a):
        raise ValueError(f"no: {a.sum().item()}")

    with pytest.raises(ValueError, match="no: 0.0"):
        F.vmap(refuses)(mg.zeros(0, 2, 2))


def test_the_stand_in_that_was_refused_draws_nothing():
    mg.manual_seed(0)
    F.vmap(lambda a: mg.linalg.inv(a) + mg.rand(2, 2), randomness="different")(mg.zeros(0, 2, 2))
    after = mg.rand(3)
    mg.manual_seed(0)
    F.vmap(lambda a: mg.linalg.inv(a + mg.eye(2)) + mg.rand(2, 2), randomness="different")(mg.zeros(0, 2, 2))
    np.testing.assert_array_equal(after.numpy(), mg.rand(3).numpy())


# Found by running every OpInfo sample's function over an empty batch: the identity stand-in
# is singular where the function reshapes it (tensorinv) or where it is not square (the ones
# of a (3, 5) lu_factor input), and integer leaves were zeros, which no LAPACK pivot vector
# holds (its entries count from 1).  (function, the batched inputs, torch 2.13's output shapes)
REFUSES_ZEROS_AND_IDENTITY = {
    "lu_factor_wide": (mg.linalg.lu_factor, [((0, 3, 5), "f")], [(0, 3, 5), (0, 3)]),
    "lu_factor_tall": (mg.linalg.lu_factor, [((0, 6, 5), "f")], [(0, 6, 5), (0, 5)]),
    "lu_solve": (mg.linalg.lu_solve, [((0, 3, 3), "f"), ((0, 3), "i"), ((0, 3, 4), "f")], [(0, 3, 4)]),
    "lu_unpack": (mg.lu_unpack, [((0, 3, 5), "f"), ((0, 3), "i")], [(0, 3, 3), (0, 3, 3), (0, 3, 5)]),
    "tensorinv": (lambda a: mg.linalg.tensorinv(a, ind=2), [((0, 4, 3, 6, 2), "f")], [(0, 6, 2, 4, 3)]),
}


@pytest.mark.parametrize("name", REFUSES_ZEROS_AND_IDENTITY)
def test_a_function_refusing_zeros_and_the_identity_maps_over_an_empty_batch(name):
    f, inputs, want = REFUSES_ZEROS_AND_IDENTITY[name]
    args = [mg.zeros(*s, dtype=mg.float64 if k == "f" else mg.int32) for s, k in inputs]
    out = F.vmap(f)(*args)
    outs = out if isinstance(out, tuple) else (out,)
    assert [tuple(o.shape) for o in outs] == want


def test_the_generic_stand_in_draws_nothing_from_the_engines_generator():
    mg.manual_seed(0)
    # (2, 3, 6) refuses zeros and the identity of its last two dims: the generic stand-in answers
    F.vmap(lambda a: mg.linalg.tensorinv(a, ind=2) + mg.rand(6, 2, 3), randomness="different")(mg.zeros(0, 2, 3, 6))
    after = mg.rand(3)
    mg.manual_seed(0)
    mg.rand(6, 2, 3)
    np.testing.assert_array_equal(after.numpy(), mg.rand(3).numpy())
