"""PyTorch's ``torch.distributions.<submodule>`` addresses: one file per distribution there
(``normal.py``, ``categorical.py``, ...), where programs import from -- ``from
torch.distributions.categorical import Categorical`` in RL code, ``torch.distributions.normal.Normal``
in the sparsely-gated mixture of experts.  The engine groups its distributions by kind
(``continuous``, ``discrete``, ``gamma``, ...), so each of PyTorch's addresses that is not also a
file here is a module object made from the table below, holding the engine's classes under
PyTorch's names: ``mg.distributions.normal.Normal is mg.distributions.Normal``.  The files that
share PyTorch's name (``gamma``, ``uniform``, ``kl``, ``transforms``, ``constraints``, ...) already
hold what PyTorch's do.  ``tests/test_distributions_torch_paths.py`` checks the table against
PyTorch's layout."""

from __future__ import annotations

import sys
import types
from typing import Any

from . import relaxed

# PyTorch's submodule: the names it holds that the engine offers (each from the package, unless a
# module is named: the relaxed distributions' bases are not exported at the top, as in PyTorch).
PLACES: dict[str, tuple[Any, ...]] = {
    "bernoulli": ("Bernoulli",),
    "beta": ("Beta",),
    "binomial": ("Binomial",),
    "categorical": ("Categorical",),
    "cauchy": ("Cauchy",),
    "chi2": ("Chi2",),
    "dirichlet": ("Dirichlet",),
    "distribution": ("Distribution",),
    "exp_family": ("ExponentialFamily",),
    "exponential": ("Exponential",),
    "fishersnedecor": ("FisherSnedecor",),
    "geometric": ("Geometric",),
    "gumbel": ("Gumbel",),
    "half_cauchy": ("HalfCauchy",),
    "half_normal": ("HalfNormal",),
    "independent": ("Independent",),
    "inverse_gamma": ("InverseGamma",),
    "kumaraswamy": ("Kumaraswamy",),
    "laplace": ("Laplace",),
    "log_normal": ("LogNormal",),
    "logistic_normal": ("LogisticNormal",),
    "lowrank_multivariate_normal": ("LowRankMultivariateNormal",),
    "mixture_same_family": ("MixtureSameFamily",),
    "multinomial": ("Multinomial",),
    "multivariate_normal": ("MultivariateNormal",),
    "negative_binomial": ("NegativeBinomial",),
    "normal": ("Normal",),
    "one_hot_categorical": ("OneHotCategorical", "OneHotCategoricalStraightThrough"),
    "pareto": ("Pareto",),
    "poisson": ("Poisson",),
    "relaxed_bernoulli": ((relaxed, "LogitRelaxedBernoulli"), "RelaxedBernoulli"),
    "relaxed_categorical": ((relaxed, "ExpRelaxedCategorical"), "RelaxedOneHotCategorical"),
    "studentT": ("StudentT",),
    "transformed_distribution": ("TransformedDistribution",),
    "weibull": ("Weibull",),
}


def install(package: dict[str, Any]) -> None:
    """Make each row of ``PLACES`` a submodule of the package whose globals are ``package``: an
    attribute of it, and in ``sys.modules`` so that ``from ...distributions.normal import Normal``
    imports it."""
    for submodule, entries in PLACES.items():
        qualified = f"{package['__name__']}.{submodule}"
        held = {}
        for entry in entries:
            home, name = (None, entry) if isinstance(entry, str) else entry
            held[name] = package[name] if home is None else getattr(home, name)
        module = types.ModuleType(qualified, f"PyTorch's ``torch.distributions.{submodule}``: {', '.join(held)}.")
        module.__dict__.update(held)
        module.__all__ = list(held)
        package[submodule] = module
        sys.modules[qualified] = module
