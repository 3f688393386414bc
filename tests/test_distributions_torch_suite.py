"""``mg.distributions`` where PyTorch's own test_distributions.py (run against it, translated) found it
apart from ``torch.distributions`` 2.13:

* parameters that do not broadcast were NumPy's ``ValueError``; PyTorch's ``broadcast_all`` raises
  ``RuntimeError`` (test_invalid_parameter_broadcasting);
* ``Gamma``/``Chi2.log_prob`` refused a Python number, which PyTorch's reads as a tensor first
  (test_gamma_shape_scalar_params, test_gamma_log_prob_at_boundary);
* ``kl_divergence`` of two ``HalfCauchy`` was NotImplementedError; PyTorch's HalfCauchy is a
  TransformedDistribution, so it answers the Cauchys' KL (test_kl_shape);
* a program's own distribution without ``arg_constraints``/``support`` crashed in ``log_prob`` where
  PyTorch warns and checks nothing (test_warning_unimplemented_constraints);
* float32 on the host: the Dirichlet (so Beta) draw and the implicit gradients of the gamma family were
  worked in float32, where PyTorch's CPU kernels work in double: a Beta(0.01, 0.01) draw had a
  spurious mode at 0.5 (test_beta_underflow) and Rice's expansion was 10% off (TestRsample).

Expected values are torch 2.13's (float64), pasted as literals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.distributions import (
    Chi2,
    Distribution,
    FisherSnedecor,
    Gamma,
    Gumbel,
    HalfCauchy,
    Kumaraswamy,
    Laplace,
    Normal,
    Pareto,
    StudentT,
    kl_divergence,
)
from minigrad_ckpt.distributions.implicit_gradients import dirichlet_grad, standard_gamma_grad


def _t(values, dtype=mg.float64):
    return mg.tensor(values, dtype=dtype)


@pytest.mark.parametrize("cls, kwargs", [
    (Normal, {"loc": [[0.0, 0.0]], "scale": [1.0, 1.0, 1.0, 1.0]}),
    (Normal, {"loc": [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], "scale": [1.0, 1.0]}),
    (FisherSnedecor, {"df1": [1.0, 1.0], "df2": [1.0, 1.0, 1.0]}),
    (Gumbel, {"loc": [[0.0, 0.0]], "scale": [1.0, 1.0, 1.0, 1.0]}),
    (Gamma, {"concentration": [1.0, 1.0], "rate": [1.0, 1.0, 1.0]}),
    (Kumaraswamy, {"concentration1": [[1.0, 1.0]], "concentration0": [1.0, 1.0, 1.0, 1.0]}),
    (Laplace, {"loc": [0.0, 0.0], "scale": [1.0, 1.0, 1.0]}),
    (Pareto, {"scale": [1.0, 1.0], "alpha": [1.0, 1.0, 1.0]}),
    (StudentT, {"df": [1.0, 1.0], "scale": [1.0, 1.0, 1.0]}),
    (StudentT, {"df": [1.0, 1.0], "loc": [1.0, 1.0, 1.0]}),
])
def test_parameters_that_do_not_broadcast_are_a_runtime_error(cls, kwargs):
    with pytest.raises(RuntimeError):  # torch: RuntimeError "The size of tensor a (2) must match ..."
        cls(**{name: _t(value) for name, value in kwargs.items()})


@pytest.mark.parametrize("dist, value, expected", [
    (lambda: Gamma(2.0, 3.0), 1, -0.8027754226637804),   # torch: Gamma(2., 3.).log_prob(1)
    (lambda: Chi2(3.0), 2, -1.5723649429247),             # torch: Chi2(3.).log_prob(2)
    (lambda: Gamma(0.5, 1.0), 0, math.inf),               # torch: Gamma(.5, 1).log_prob(0)
    (lambda: Gamma(1.0, 1.0), 0, 0.0),
])
def test_gamma_log_prob_reads_a_number_as_a_tensor(dist, value, expected):
    mg.set_default_dtype(mg.float64)
    try:
        out = dist().log_prob(value)
    finally:
        mg.set_default_dtype(mg.float32)
    assert tuple(out.shape) == ()
    assert out.item() == pytest.approx(expected, rel=1e-12)


def test_other_distributions_still_refuse_a_number():
    for dist in (Normal(0.0, 1.0), HalfCauchy(1.0), StudentT(1.0)):
        with pytest.raises(ValueError, match="must be a Tensor"):
            dist.log_prob(1)


def test_kl_of_two_half_cauchys_is_the_cauchys():
    # torch: kl_divergence(HalfCauchy(tensor([1., 2., .5])), HalfCauchy(tensor([2., 2., 3.])))
    kl = kl_divergence(HalfCauchy(_t([1.0, 2.0, 0.5])), HalfCauchy(_t([2.0, 2.0, 3.0])))
    np.testing.assert_allclose(kl.numpy(), [0.11778303565638382, 0.0, 0.7137664677626812], rtol=1e-12)


class _Delta(Distribution):
    """PyTorch's test_warning_unimplemented_constraints: neither arg_constraints nor support."""

    def __init__(self, validate_args=True):
        super().__init__(validate_args=validate_args)

    def sample(self, sample_shape=()):
        return mg.zeros(*sample_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return value * 0


@pytest.mark.parametrize("step, message", [
    (lambda: _Delta(), "does not define `arg_constraints`"),
    (lambda: _Delta(validate_args=False)._validate_sample(mg.zeros(2)), "does not define `support`"),
])
def test_a_programs_distribution_without_constraints_warns(step, message):
    with pytest.warns(UserWarning, match=message):
        step()


def test_a_programs_distribution_without_constraints_is_still_usable():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = _Delta()
        assert d.log_prob(d.sample((2,))).tolist() == [0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # validation off: no warning
        _Delta(validate_args=False).log_prob(mg.zeros(2))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_beta_of_small_concentrations_has_no_spurious_mode_at_one_half(dtype):
    mg.manual_seed(1)
    draws = mg.distributions.Beta(_t(1e-2, dtype), _t(1e-2, dtype)).sample((20000,)).numpy()
    assert draws.dtype == np.dtype(dtype)
    assert (draws == 0).sum() == 0 and (draws == 1).sum() == 0
    # half the mass near each end (torch's test, atol 0.05); in float32 a fifth of the draws were 0.5
    assert abs((draws < 0.1).mean() - 0.5) < 0.05 and abs((draws > 0.9).mean() - 0.5) < 0.05


# points near the Beta's mean (Rice's polynomial form) where float32 arithmetic lost 8-10%;
# expected: torch._dirichlet_grad in float64 at the same float32 inputs
@pytest.mark.parametrize("x, alpha, total, expected", [
    (0.9059998989105225, 100.0, 110.0, 0.009118245803710507),
    (0.09396649897098541, 10.0, 110.0, 0.009425742037967016),
    (0.49624794721603394, 100.0, 200.0, 0.004997797862821768),
])
def test_dirichlet_grad_in_float32_is_worked_in_double(x, alpha, total, expected):
    out = dirichlet_grad(_t([x], mg.float32), _t([alpha], mg.float32), _t([total], mg.float32))
    assert out.dtype == mg.float32
    assert out.item() == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("alpha, x, expected", [
    (10.0, 11.178085327148438, 1.074461243753608),   # torch._standard_gamma_grad in float64
    (20.0, 22.069124221801758, 1.058817818247641),
])
def test_standard_gamma_grad_in_float32_is_worked_in_double(alpha, x, expected):
    out = standard_gamma_grad(_t([alpha], mg.float32), _t([x], mg.float32))
    assert out.dtype == mg.float32
    assert out.item() == pytest.approx(expected, rel=1e-6)
