"""PyTorch's batched gradient checks: ``gradcheck(check_batched_grad=True)`` runs backward under
``mg.vmap`` against one cotangent at a time, ``check_batched_forward_grad=True`` forward mode, and
``gradgradcheck(check_batched_grad=True)`` the backward of the backward; answers and messages are
torch 2.13's (pasted)."""

import pytest

import minigrad_ckpt as mg


def _x():
    return mg.tensor([0.3, -1.2, 2.0], dtype=mg.float64, requires_grad=True)


def _z():
    return mg.tensor([0.3 + 1j, -1.2 - 0.5j], dtype=mg.complex128, requires_grad=True)


@pytest.mark.parametrize("f", [mg.sin, mg.exp, mg.abs, mg.tanh])
@pytest.mark.parametrize("make", [_x, _z])
def test_batched_checks_pass_where_torchs_pass(f, make):
    # torch 2.13: True for each, real and complex
    assert mg.autograd.gradcheck(f, (make(),), check_batched_grad=True)
    assert mg.autograd.gradcheck(f, (make(),), check_batched_grad=True, check_forward_ad=True,
                                 check_batched_forward_grad=True)
    assert mg.autograd.gradgradcheck(f, (make(),), check_batched_grad=True)


def test_batched_checks_of_several_inputs_and_outputs():
    a, b = mg.ones(2, 3, dtype=mg.float64, requires_grad=True), mg.ones(3, 2, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradgradcheck(mg.matmul, (a, b), check_batched_grad=True)
    # an input no output depends on: its batched gradient is zeros, as PyTorch's
    assert mg.autograd.gradcheck(lambda p, q: (p.sin(), p * 2), (_x(), _x()), check_batched_grad=True)


def _writes_into_a_buffer():
    buf = mg.zeros(3, dtype=mg.float64)

    class Buffered(mg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            buf.copy_(g)  # fine one cotangent at a time; under vmap a batched value into an unbatched tensor
            return buf * 2

    return Buffered


def test_a_backward_vmap_cannot_run_fails_the_batched_check():
    f = _writes_into_a_buffer()
    assert mg.autograd.gradcheck(f.apply, (_x(),))
    # torch 2.13: GradcheckError "While computing batched gradients, got: vmap: aten::copy_(self, *extra_args)
    # is not possible ..." followed by FAILED_BATCHED_GRAD_MSG; False with raise_exception=False
    with pytest.raises(mg.testing.GradcheckError) as e:
        mg.autograd.gradcheck(f.apply, (_x(),), check_batched_grad=True)
    assert str(e.value).startswith("While computing batched gradients, got: vmap: ")
    assert "with `check_batched_grad=False` as a keyword argument." in str(e.value)
    assert isinstance(e.value, RuntimeError)
    assert mg.autograd.gradcheck(f.apply, (_x(),), check_batched_grad=True, raise_exception=False) is False


def test_a_mismatch_under_vmap_names_output_and_input():
    class Counting(mg.autograd.Function):
        # a backward that keeps state: each call scales by how many came before, so the two
        # cotangents one at a time (calls 1, 2) and under vmap (calls 3, 4) disagree
        calls = 0

        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            Counting.calls += 1
            return g * 2 * Counting.calls

    from minigrad_ckpt.autograd.gradcheck import _FAILED_BATCHED_GRAD, _batched_backward_agrees

    with pytest.raises(mg.testing.GradcheckError) as e:
        _batched_backward_agrees(Counting.apply, (_x(),))
    # torch 2.13's _get_failed_batched_grad_test_msg layout
    assert str(e.value).startswith("For output 0 and input 0:\n\n" + _FAILED_BATCHED_GRAD + "\n\nGot:\n")
    assert "\n\nExpected:\n" in str(e.value)


def test_each_batched_check_is_refused_without_its_mode():
    # torch 2.13's AssertionErrors, word for word
    with pytest.raises(AssertionError,
                       match=r"^Setting check_batched_grad=True requires check_backward_ad to be True$"):
        mg.autograd.gradcheck(mg.sin, (_x(),), check_batched_grad=True, check_backward_ad=False, check_forward_ad=True)
    with pytest.raises(AssertionError,
                       match=r"^Setting check_batched_forward_grad=True requires check_forward_ad to be True$"):
        mg.autograd.gradcheck(mg.sin, (_x(),), check_batched_forward_grad=True)
    with pytest.raises(AssertionError,
                       match=r"^Setting check_undefined_grad=True requires check_rev_over_rev to be True$"):
        mg.autograd.gradgradcheck(mg.sin, (_x(),), check_rev_over_rev=False, check_fwd_over_rev=True)
    with pytest.raises(AssertionError,
                       match=r"^Setting check_batched_grad=True requires check_rev_over_rev to be True$"):
        mg.autograd.gradgradcheck(mg.sin, (_x(),), check_batched_grad=True, check_rev_over_rev=False,
                                  check_fwd_over_rev=True, check_undefined_grad=False)
    assert mg.autograd.gradgradcheck(mg.sin, (_x(),), check_rev_over_rev=False, check_fwd_over_rev=True,
                                     check_undefined_grad=False)


def test_the_batched_check_leaves_the_gradients_alone():
    x = _x()
    assert mg.autograd.gradcheck(mg.sin, (x,), check_batched_grad=True, check_forward_ad=True,
                                 check_batched_forward_grad=True)
    assert x.grad is None


def test_the_batched_checks_leave_the_random_stream_alone():
    # PyTorch's draw from the global generator; the engine's checks draw from their own
    mg.manual_seed(0)
    want = mg.rand(3)
    mg.manual_seed(0)
    assert mg.autograd.gradcheck(mg.sin, (_x(),), check_batched_grad=True, check_forward_ad=True,
                                 check_batched_forward_grad=True)
    assert mg.autograd.gradgradcheck(mg.sin, (_x(),), check_batched_grad=True)
    assert mg.rand(3).tolist() == want.tolist()
