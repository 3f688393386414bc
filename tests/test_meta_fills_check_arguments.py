"""A fill of a tensor on the meta device (``x.normal_()``, ``nn.init.*``, ``fill_``) writes nothing, but
it refuses what the same fill of a CPU tensor refuses.  Before, every fill returned a meta tensor at
once, so an argument the CPU fill rejects (``uniform_(2, 1)``, ``kaiming_uniform_(mode="bad")``,
``xavier_uniform_`` of a vector, ``fill_("a")``, ``normal_()`` of an int64 tensor, ``normal_()`` of a
leaf that requires grad outside ``no_grad``) was accepted silently on meta -- a model built there with a
bad initialisation failed only later, once moved to a real device.  Found by running the same calls on
CPU tensors and on meta ones (PyTorch's meta fills check most of these too: its normal_(0, -1),
exponential_(-1), xavier_uniform_ of a vector, kaiming's bad mode, fill_("a") raise).  The CPU call's
exception is the reference."""

import warnings

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn

CALLS = [
    lambda d: mg.empty(3, device=d).uniform_(2, 1),
    lambda d: mg.empty(3, device=d).normal_(0, -1),
    lambda d: mg.empty(3, device=d).normal_(mg.ones(1), 1),
    lambda d: mg.empty(3, device=d, dtype=mg.int64).normal_(),
    lambda d: mg.empty(3, device=d, dtype=mg.int64).uniform_(),
    lambda d: mg.empty(3, device=d, dtype=mg.bool).exponential_(),
    lambda d: mg.empty(3, device=d).random_(5, 2),
    lambda d: mg.empty(3, device=d, dtype=mg.uint8).random_(300),
    lambda d: mg.empty(3, device=d).bernoulli_(2.0),
    lambda d: mg.empty(3, device=d).bernoulli_(mg.ones(5)),
    lambda d: mg.empty(3, device=d).exponential_(-1),
    lambda d: mg.empty(3, device=d).geometric_(0),
    lambda d: mg.empty(3, device=d).cauchy_(0, -1),
    lambda d: mg.empty(3, device=d).log_normal_(0, -1),
    lambda d: mg.empty(3, device=d, requires_grad=True).normal_(),
    lambda d: mg.empty(3, device=d).fill_("a"),
    lambda d: nn.init.xavier_uniform_(mg.empty(3, device=d)),
    lambda d: nn.init.xavier_uniform_(mg.empty(3, 3, device=d), gain="x"),
    lambda d: nn.init.kaiming_uniform_(mg.empty(3, 4, device=d), mode="bad"),
    lambda d: nn.init.kaiming_normal_(mg.empty(3, 4, device=d), nonlinearity="bad"),
    lambda d: nn.init.orthogonal_(mg.empty(3, device=d)),
    lambda d: nn.init.dirac_(mg.empty(3, 4, device=d)),
    lambda d: nn.init.dirac_(mg.empty(3, 4, 5, device=d), groups=2),
    lambda d: nn.init.eye_(mg.empty(3, 4, 5, device=d)),
    lambda d: nn.init.sparse_(mg.empty(3, device=d), 0.1),
    lambda d: nn.init.trunc_normal_(mg.empty(3, device=d), a=2, b=1),
    lambda d: nn.init.uniform_(mg.empty(3, device=d), 2, 1),
    lambda d: nn.init.normal_(mg.empty(3, device=d), 0, -1),
    lambda d: nn.init.constant_(mg.empty(3, device=d), "a"),
]


@pytest.mark.parametrize("call", CALLS)
def test_a_meta_fill_refuses_what_the_cpu_fill_refuses(call):
    with pytest.raises(Exception) as on_cpu:
        call("cpu")
    with pytest.raises(type(on_cpu.value)):
        call("meta")


GOOD = [
    lambda d: mg.empty(3, device=d).uniform_(-1, 1),
    lambda d: mg.empty(3, device=d, dtype=mg.uint8).random_(),
    lambda d: mg.empty(3, device=d).bernoulli_(mg.full((3,), 0.5, device=d)),
    lambda d: mg.empty(2, 3, device=d).fill_(2),
    lambda d: nn.init.kaiming_uniform_(mg.empty(3, 4, device=d), mode="fan_out"),
    lambda d: nn.init.orthogonal_(mg.empty(3, 4, device=d)),
    lambda d: nn.init.dirac_(mg.empty(4, 2, 3, device=d), groups=2),
    lambda d: nn.init.eye_(mg.empty(3, 4, device=d)),
    lambda d: nn.init.sparse_(mg.empty(4, 3, device=d), 0.5),
    lambda d: nn.init.trunc_normal_(mg.empty(3, device=d), a=-1, b=1),
    lambda d: nn.init.trunc_normal_(mg.empty(3, device=d), a=3, b=4),  # (the inverted-CDF branch)
]


@pytest.mark.parametrize("call", GOOD)
def test_a_meta_fill_takes_what_the_cpu_fill_takes_and_draws_nothing(call):
    expected = call("cpu")
    mg.manual_seed(0)
    before = mg.randn(2)
    mg.manual_seed(0)
    got = call("meta")
    assert got.is_meta and got.shape == expected.shape and got.dtype == expected.dtype
    assert mg.randn(2).equal(before)  # nothing was taken from the generator


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_the_he_fills_warn_about_no_elements_at_the_callers_line(device):
    with warnings.catch_warnings(record=True) as caught:  # (on meta there was no warning before)
        warnings.simplefilter("always")
        nn.init.kaiming_uniform_(mg.empty(0, 3, device=device))
    assert [w.filename for w in caught] == [__file__]
