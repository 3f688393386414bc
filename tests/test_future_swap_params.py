"""``mg.__future__``'s switches and ``Tensor.module_load``, from the ``swap_tensors`` recipe: with
``set_swap_module_params_on_conversion(True)`` a module's conversions (``double``, ``to``, ``to_empty``)
and ``load_state_dict`` swap the new contents into each parameter object (``mg.utils.swap_tensors``),
so an optimizer built before still holds it -- ``load_state_dict(assign=True)`` of a model built on
the meta device too -- and ``load_state_dict`` asks ``param.module_load(value, assign=...)`` what to
swap in.  Before, ``mg.__future__`` and ``module_load`` were missing (AttributeError).  torch 2.13's
answers are in the comments."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn


@pytest.fixture
def swapping():
    mg.__future__.set_swap_module_params_on_conversion(True)
    yield
    mg.__future__.set_swap_module_params_on_conversion(False)


@pytest.fixture
def overwriting():
    mg.__future__.set_overwrite_module_params_on_conversion(True)
    yield
    mg.__future__.set_overwrite_module_params_on_conversion(False)


def test_the_switches_start_off_and_read_back():
    f = mg.__future__
    assert not f.get_swap_module_params_on_conversion() and not f.get_overwrite_module_params_on_conversion()
    f.set_swap_module_params_on_conversion(True)
    try:
        assert f.get_swap_module_params_on_conversion()
    finally:
        f.set_swap_module_params_on_conversion(False)


def test_a_conversion_swaps_the_new_contents_into_the_same_objects(swapping):
    m = nn.Linear(2, 2)
    m(mg.ones(1, 2)).sum().backward()
    w, g = m.weight, m.weight.grad
    w.note = "mine"
    optimizer = mg.optim.SGD(m.parameters(), lr=0.1)
    m.double()
    # torch: True True torch.float64 torch.float64 False True
    assert m.weight is w and m.weight.grad is g and w.dtype == mg.float64 and g.dtype == mg.float64
    assert not hasattr(w, "note")  # the contents came whole: the old object's attributes went with the old ones
    assert optimizer.param_groups[0]["params"][0] is m.weight and type(m.weight) is nn.Parameter


def test_to_empty_of_a_meta_model_swaps_too(swapping):
    with mg.device("meta"):
        m = nn.Linear(2, 3)
    w = m.weight
    m.to_empty(device="cpu")
    assert m.weight is w and str(w.device) == "cpu" and w.shape == (3, 2)   # torch: True cpu


def test_a_swap_the_graph_refuses_is_named_by_module_and_parameter(swapping):
    m = nn.Linear(2, 2)
    y = m(mg.ones(1, 2))
    # torch swaps it and poisons the old graph's gradient accumulator; the engine's swap_tensors refuses a
    # tensor a graph still holds (swap.py), and the conversion says which, in PyTorch's words
    with pytest.raises(RuntimeError, match=r"_apply\(\): Couldn't swap Linear.weight"):
        m.double()
    y.sum().backward()  # the graph is intact: the refusal changed nothing
    assert m.weight.dtype == mg.float32 and m.weight.grad is not None


def test_load_state_dict_assign_into_a_meta_model_keeps_the_objects(swapping):
    # the recipe: a skeleton on the meta device, then load_state_dict(state_dict, assign=True)
    with mg.device("meta"):
        m = nn.Linear(3, 5)
    w, b = m.weight, m.bias
    src = nn.Linear(3, 5)
    state_dict = src.state_dict()
    m.load_state_dict(state_dict, assign=True)
    # torch: True True cpu Parameter True True
    assert m.weight is w and m.bias is b and str(w.device) == "cpu" and type(w) is nn.Parameter
    assert w.requires_grad and w.data_ptr() == state_dict["weight"].data_ptr()
    np.testing.assert_array_equal(w.detach().numpy(), src.weight.detach().numpy())


def test_load_state_dict_without_assign_keeps_the_modules_dtype(swapping):
    m = nn.Linear(3, 5, dtype=mg.float64)
    w = m.weight
    state_dict = {"weight": mg.arange(15.0).reshape(5, 3), "bias": mg.zeros(5)}
    m.load_state_dict(state_dict)
    assert m.weight is w and w.dtype == mg.float64 and w.requires_grad       # torch: True torch.float64 True
    assert w.data_ptr() != state_dict["weight"].data_ptr() and w[4, 2].item() == 14.0


def test_a_subclass_transforms_what_it_loads_through_module_load(swapping):
    # the recipe's MyQuantizedLinearWeight, with module_load overridden as a method (the engine has no
    # __torch_function__): the weight takes the state dict's values scaled, the bias loads plainly
    class Halved(nn.Parameter):
        def module_load(self, other, assign=False):
            return Halved(other.detach() * 0.5)

    m = nn.Linear(2, 2)
    m.weight = Halved(m.weight.detach())
    w = m.weight
    m.load_state_dict({"weight": mg.full((2, 2), 4.0), "bias": mg.ones(2)})
    assert m.weight is w and type(w) is Halved and w.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert m.bias.tolist() == [1.0, 1.0]


def test_module_load_returning_an_input_is_refused(swapping):
    class Lazy(nn.Parameter):
        def module_load(self, other, assign=False):
            return other

    m = nn.Linear(2, 2)
    m.weight = Lazy(m.weight.detach())
    with pytest.raises(RuntimeError, match="module_load returned one of self or other"):
        m.load_state_dict(nn.Linear(2, 2).state_dict())


def test_module_load_itself():
    p = nn.Parameter(mg.zeros(2))
    value = mg.ones(2, dtype=mg.float64)
    with mg.no_grad():
        copied = p.module_load(value)
    assigned = p.module_load(value, assign=True)
    assert copied.dtype == mg.float32 and copied.tolist() == [1.0, 1.0] and p.tolist() == [1.0, 1.0]
    assert assigned.dtype == mg.float64 and assigned is not value and not assigned.requires_grad
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p.module_load(value)   # torch: the same refusal (an in-place copy into a leaf that requires grad)


def test_the_overwrite_switch_makes_new_parameter_objects(overwriting):
    m = nn.Linear(2, 2)
    m(mg.ones(1, 2)).sum().backward()
    w, g = m.weight, m.weight.grad
    m.double()
    # torch: False torch.float32 torch.float64 False torch.float64
    assert m.weight is not w and w.dtype == mg.float32 and m.weight.dtype == mg.float64
    assert m.weight.grad is not g and m.weight.grad.dtype == mg.float64 and type(m.weight) is nn.Parameter


def test_module_type_goes_through_the_switches_as_the_other_conversions(swapping):
    """``Module.type`` cast in place whatever the switches said (found by a cold review of the swap
    path: PyTorch's ``type`` is an ``_apply`` like ``double``).  torch 2.13, swap: True float64, the
    attribute gone; overwrite: False, the old object float32."""
    m = nn.Linear(2, 2)
    m(mg.ones(1, 2)).sum().backward()
    w, g = m.weight, m.weight.grad
    w.note = "mine"
    m.type(mg.float64)
    assert m.weight is w and m.weight.grad is g and w.dtype == mg.float64 and g.dtype == mg.float64
    assert not hasattr(w, "note") and type(m.weight) is nn.Parameter
    mg.__future__.set_swap_module_params_on_conversion(False)
    mg.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        m.type("torch.FloatTensor")
    finally:
        mg.__future__.set_overwrite_module_params_on_conversion(False)
    assert m.weight is not w and w.dtype == mg.float64 and m.weight.dtype == mg.float32
    assert m.weight.grad.dtype == mg.float32 and m.bias.dtype == mg.float32


def test_to_empty_makes_the_gradient_anew_as_pytorchs_apply():
    """``to_empty`` keeps a parameter's gradient, made anew on the device with its shape and dtype (values
    unspecified: zeros here), as torch 2.13's (its ``_apply`` gives the gradient ``empty_like`` too)."""
    m = mg.nn.Linear(2, 3)
    m(mg.ones(1, 2)).sum().backward()
    m.to_empty(device="cpu")
    assert m.weight.grad is not None and m.weight.grad.shape == (3, 2) and m.weight.grad.dtype == m.weight.dtype
    assert m.bias.grad is not None and m.bias.grad.shape == (3,)
