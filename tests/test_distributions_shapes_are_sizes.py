"""A distribution's ``batch_shape``, ``event_shape`` and ``_extended_shape`` are ``Size``s, as PyTorch's.

Found porting denisyarats/pytorch_sac (``SquashedNormal``, a ``TransformedDistribution``): its
``batch_shape`` was a plain tuple here, where PyTorch 2.13 answers ``torch.Size([4, 2])``. A plain
tuple is not harmless: ``d.batch_shape.numel()`` was an AttributeError, and
``mg.FloatTensor(d.batch_shape)`` -- the legacy constructor reads a ``Size`` as a shape and a tuple
as data -- silently built the 2-element tensor ``[4., 2.]`` instead of a ``(4, 2)`` one.
"""

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

x = mg.zeros(4, 2)

# PyTorch 2.13: (batch_shape, event_shape), every one a torch.Size
CASES = {
    "Normal": (lambda: D.Normal(x, 1.0), (4, 2), ()),
    "Categorical": (lambda: D.Categorical(logits=x), (4,), ()),
    "Independent": (lambda: D.Independent(D.Normal(x, 1.0), 1), (4,), (2,)),
    "TransformedDistribution": (lambda: D.TransformedDistribution(D.Normal(x, 1.0), [D.TanhTransform()]), (4, 2), ()),
    "MultivariateNormal": (lambda: D.MultivariateNormal(mg.zeros(3, 2), mg.eye(2)), (3,), (2,)),
    "Uniform": (lambda: D.Uniform(0.0, 1.0), (), ()),
    "Normal.expand": (lambda: D.Normal(0.0, 1.0).expand((3,)), (3,), ()),
    "Dirichlet": (lambda: D.Dirichlet(mg.ones(3)), (), (3,)),
    "OneHotCategorical": (lambda: D.OneHotCategorical(logits=x), (4,), (2,)),
    "LowRankMultivariateNormal": (
        lambda: D.LowRankMultivariateNormal(mg.zeros(2), mg.ones(2, 1), mg.ones(2)), (), (2,)),
    "Bernoulli": (lambda: D.Bernoulli(probs=mg.full((3,), 0.5)), (3,), ()),
    "Gamma": (lambda: D.Gamma(mg.ones(2, 3), 1.0), (2, 3), ()),
}


@pytest.mark.parametrize("name", CASES)
def test_the_shapes_are_sizes_with_pytorchs_values(name):
    build, batch, event = CASES[name]
    d = build()
    assert type(d.batch_shape) is mg.Size and d.batch_shape == batch
    assert type(d.event_shape) is mg.Size and d.event_shape == event
    extended = d._extended_shape((5,))
    assert type(extended) is mg.Size and extended == (5, *batch, *event)


def test_a_batch_shape_counts_and_builds_like_a_tensors_shape():
    d = D.Normal(x, 1.0)
    assert d.batch_shape.numel() == 8
    assert mg.FloatTensor(d.batch_shape).shape == (4, 2)  # a shape, not the data [4., 2.]
    assert d.batch_shape + (3,) == (4, 2, 3) and type(d.batch_shape + (3,)) is mg.Size


def test_a_programs_own_distribution_gets_sizes_from_the_base_constructor():
    class Mine(D.Distribution):
        arg_constraints = {}

        def __init__(self):
            super().__init__(batch_shape=[2, 3], event_shape=4)

    d = Mine()
    assert type(d.batch_shape) is mg.Size and d.batch_shape == (2, 3)
    assert type(d.event_shape) is mg.Size and d.event_shape == (4,)
