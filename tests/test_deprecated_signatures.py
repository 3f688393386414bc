"""PyTorch's deprecated scale-first signatures, which PyTorch 2 still runs with one warning a process.

Found porting the NYU deep-learning course's optimizer notebook (extra/optimization.ipynb), whose
hand-written SGD and Adam use ``p.data.add_(-lr, d_p)``, ``m.mul_(momentum).add_(1 - momentum, grad)``,
``v.addcmul_(1 - alpha, grad, grad)`` and ``p.data.addcdiv_(-step_size, m, denom)``: every one was a
TypeError here ("argument 'alpha' must be Number, not Tensor", "addcmul() takes 3 positional
arguments but 4 were given").  Expected values are worked by hand.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import deprecated_signatures


def t():
    return mg.tensor([1.0, 2.0])


U = mg.tensor([3.0, 5.0])
M, M1, M2 = mg.ones(2, 2), mg.eye(2) * 2, mg.ones(2, 2)
V = mg.tensor([1.0, 2.0])
B = mg.ones(1, 2, 2)

CASES = [  # (the deprecated call, the value PyTorch 2.13 gives)
    (lambda: mg.add(t(), 2, U), [7.0, 12.0]),
    (lambda: t().add(2, U), [7.0, 12.0]),
    (lambda: t().add_(2, U), [7.0, 12.0]),
    (lambda: t().add(2, 3), [7.0, 8.0]),        # alpha 2, other the number 3
    (lambda: mg.sub(t(), 2, U), [-5.0, -8.0]),
    (lambda: t().sub(2, U), [-5.0, -8.0]),
    (lambda: t().sub_(2, U), [-5.0, -8.0]),
    (lambda: mg.add(t(), 2, U, out=mg.empty(2)), [7.0, 12.0]),
    (lambda: mg.addcmul(t(), 0.5, U, U), [5.5, 14.5]),
    (lambda: t().addcmul(0.5, U, U), [5.5, 14.5]),
    (lambda: t().addcmul_(0.5, U, U), [5.5, 14.5]),
    (lambda: mg.addcdiv(t(), 0.5, U, U), [1.5, 2.5]),
    (lambda: t().addcdiv_(0.5, U, U), [1.5, 2.5]),
    (lambda: mg.addmm(2, M, 3, M1, M2), [[8.0, 8.0], [8.0, 8.0]]),   # beta * M + alpha * M1 @ M2
    (lambda: mg.addmm(2, M, M1, M2), [[4.0, 4.0], [4.0, 4.0]]),
    (lambda: M.addmm(2, 3, M1, M2), [[8.0, 8.0], [8.0, 8.0]]),
    (lambda: M.addmm(2, M1, M2), [[4.0, 4.0], [4.0, 4.0]]),
    (lambda: M.clone().addmm_(2, 3, M1, M2), [[8.0, 8.0], [8.0, 8.0]]),
    (lambda: mg.addmv(2, V, 3, M, V), [11.0, 13.0]),
    (lambda: V.addmv(2, M, V), [5.0, 7.0]),
    (lambda: mg.addr(2, M, 3, V, V), [[5.0, 8.0], [8.0, 14.0]]),
    (lambda: mg.baddbmm(2, B, 3, B, B), [[[8.0, 8.0], [8.0, 8.0]]]),
    (lambda: mg.addbmm(2, M, B, B), [[4.0, 4.0], [4.0, 4.0]]),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_each_deprecated_form_computes_what_pytorch_does(i):
    call, expected = CASES[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert call().tolist() == expected


def test_the_current_forms_are_unchanged_and_a_positional_alpha_is_refused():
    assert t().add(U, alpha=2).tolist() == [7.0, 12.0]
    assert t().add_(U).tolist() == [4.0, 7.0]
    assert mg.addcmul(t(), U, U, value=0.5).tolist() == [5.5, 14.5]
    assert mg.addmm(M, M1, M2, beta=2, alpha=3).tolist() == [[8.0, 8.0], [8.0, 8.0]]
    with pytest.raises(TypeError, match=r"^add_\(\) takes 1 positional argument but 2 were given$"):
        t().add_(U, 2)  # PyTorch: alpha is keyword-only, and U is no Number to be the old form's alpha
    with pytest.raises(TypeError):  # a tensor of 1+ dims where the old form has its number: no reading
        mg.addcmul(t(), U, U, U)
    with pytest.raises(TypeError):
        mg.addmm(M, M, M1, M2)
    assert mg.add(t(), mg.tensor(2.0), U).tolist() == [7.0, 12.0]  # a 0-d tensor is a number there, as PyTorch's
    with pytest.raises(TypeError):  # both spellings at once: PyTorch's "unrecognized keyword arguments: alpha"
        t().add_(2, U, alpha=3)


def test_one_warning_a_process_in_pytorchs_words(monkeypatch):
    monkeypatch.setattr(deprecated_signatures, "_warned", [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t().add_(2, U)
        mg.addcmul(t(), 0.5, U, U)
    assert len(caught) == 1 and caught[0].category is UserWarning
    assert str(caught[0].message).startswith("This overload of add_ is deprecated:\n\tadd_(Number alpha, Tensor other)")


IN_PLACE_WARNINGS = [  # (the deprecated in-place call, the name PyTorch 2.13's warning gives it)
    (lambda: t().addcmul_(0.5, U, U), "addcmul_"),
    (lambda: t().addcdiv_(0.5, U, U), "addcdiv_"),
    (lambda: M.clone().addmm_(2, 3, M1, M2), "addmm_"),
    (lambda: M.clone().addmm_(2, M1, M2), "addmm_"),
    (lambda: V.clone().addmv_(2, M, V), "addmv_"),
    (lambda: M.clone().addr_(2, V, V), "addr_"),
    (lambda: B.clone().baddbmm_(2, B, B), "baddbmm_"),
    (lambda: t().addcmul(0.5, U, U), "addcmul"),
    (lambda: mg.addcdiv(t(), 0.5, U, U), "addcdiv"),
]


@pytest.mark.parametrize("i", range(len(IN_PLACE_WARNINGS)))
def test_the_warning_names_the_in_place_twin_that_was_called(monkeypatch, i):
    # LoRA's NLG AdamW (p.data.addcdiv_(-step_size, exp_avg, denom)) was told "This overload of addcdiv"
    call, name = IN_PLACE_WARNINGS[i]
    monkeypatch.setattr(deprecated_signatures, "_warned", [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    message = str(caught[0].message)
    assert message.startswith(f"This overload of {name} is deprecated:\n\t{name}(")
    assert f"instead:\n\t{name}(" in message


def test_the_gradient_goes_through_the_deprecated_form():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.tensor([3.0, 4.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (mg.add(x, 2.0, y) * mg.addcmul(x, 0.5, y, y)).sum().backward()
    s, c = np.array([7.0, 10.0]), np.array([5.5, 10.0])      # x + 2y, x + y*y/2
    np.testing.assert_allclose(x.grad.numpy(), c + s)
    np.testing.assert_allclose(y.grad.numpy(), 2 * c + s * np.array([3.0, 4.0]))


def test_a_hand_written_adam_in_the_old_spellings_matches_the_engines_adam():
    """The course notebook's AdamOptimizer.my_step, word for word, against mg.optim.Adam."""
    A = mg.tensor([[1.0, 0.0], [0.0, 5.0]], dtype=mg.float64)
    w_old = mg.tensor([1.0, 1.0], dtype=mg.float64, requires_grad=True)
    w_new = mg.tensor([1.0, 1.0], dtype=mg.float64, requires_grad=True)
    lr, alpha, momentum, eps = 0.1, 0.7, 0.7, 1e-8
    adam = mg.optim.Adam([w_new], lr=lr, betas=(momentum, alpha), eps=eps)
    state = {"step": 0, "m": mg.zeros_like(w_old.data), "v": mg.zeros_like(w_old.data)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(5):
            for w in (w_old, w_new):
                w.grad = None
                (0.5 * w @ (A @ w)).backward()
            grad = w_old.grad.data
            state["step"] += 1
            m, v = state["m"], state["v"]
            bias_correction1 = 1 - momentum ** state["step"]
            bias_correction2 = 1 - alpha ** state["step"]
            m.mul_(momentum).add_(1 - momentum, grad)
            v.mul_(alpha).addcmul_(1 - alpha, grad, grad)
            denom = (v.sqrt() / math.sqrt(bias_correction2)).add_(eps)
            w_old.data.addcdiv_(-lr / bias_correction1, m, denom)
            adam.step()
    np.testing.assert_allclose(w_old.detach().numpy(), w_new.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda: t().add_(2, U), lambda: t().add(2, U), lambda: mg.add(t(), 2, U), lambda: mg.sub(t(), 2, U),
    lambda: t().addcmul_(0.5, U, U), lambda: mg.addcdiv(t(), 0.5, U, U + 3),
    lambda: mg.addmm(0.5, mg.ones(2, 2), 2.0, mg.ones(2, 2), mg.ones(2, 2)),
], ids=["add_", "add method", "mg.add", "mg.sub", "addcmul_", "mg.addcdiv", "mg.addmm"])
def test_the_warning_points_at_the_callers_line(monkeypatch, call):
    """Each form reaches the warning through its own number of the engine's frames (methods, the out=
    wrapper, in-place twins): a fixed stacklevel pointed into the engine on some of them."""
    monkeypatch.setattr(deprecated_signatures, "_warned", [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert [w.filename for w in caught] == [__file__]


def test_other_by_keyword_stays_pytorchs_keyword():
    """``x.add_(other=u)`` and ``x.sub_(other=u, alpha=2)`` are PyTorch's current signature spelled with
    its keyword: reading the deprecated form positionally must not take the keyword away."""
    assert t().add_(other=U).tolist() == [4.0, 7.0]
    assert t().sub_(other=U, alpha=2).tolist() == [-5.0, -8.0]
    assert t().add_(U, alpha=0.5).tolist() == [2.5, 4.5]
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'other'"):
        t().sub_()
