"""``Module.call_super_init`` and ``Module.dump_patches``, PyTorch's class attributes: arguments to
``Module.__init__`` are PyTorch's TypeError unless ``call_super_init`` passes them on to the next
class of the MRO (a mixin after Module).  Both attributes were missing: a class setting
``call_super_init = True`` silently never initialised its mixin, and ``super().__init__(x=2)`` was
Python's bare "takes 1 positional argument" TypeError without the subclass's name.
Messages are torch 2.13's."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


class _Mixin:
    def __init__(self, *args, **kwargs):
        self.mixed = (args, kwargs)
        super().__init__()


def test_arguments_to_module_init_are_pytorchs_type_errors():
    class Positional(nn.Module):
        def __init__(self):
            super().__init__(1)

    class Keyword(nn.Module):
        def __init__(self):
            super().__init__(foo=1)

    with pytest.raises(TypeError, match=r"^Positional.__init__\(\) takes 1 positional argument but 2 were given$"):
        Positional()
    with pytest.raises(TypeError, match=r"^Keyword.__init__\(\) got an unexpected keyword argument 'foo'$"):
        Keyword()


def test_call_super_init_passes_the_arguments_on_to_a_mixin():
    class Cooperative(nn.Module, _Mixin):
        call_super_init = True

        def __init__(self):
            super().__init__(3, x=2)
            self.lin = nn.Linear(2, 1)

    m = Cooperative()
    assert m.mixed == ((3,), {"x": 2}) and m.training
    assert [n for n, _ in m.named_parameters()] == ["lin.weight", "lin.bias"]
    out = m.lin(mg.ones(1, 2)).sum()
    out.backward()
    assert m.lin.weight.grad.shape == (1, 2)


def test_the_class_attributes_are_pytorchs_defaults():
    assert nn.Module.call_super_init is False and nn.Module.dump_patches is False
    assert nn.Linear(1, 1).call_super_init is False
