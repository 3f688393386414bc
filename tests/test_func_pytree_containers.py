"""``mg.func``'s pytrees rebuild an ``OrderedDict`` (``model.state_dict()``, ``OrderedDict(model.named_parameters())``),
a ``defaultdict`` (with its default factory) and a ``collections.deque`` (with its ``maxlen``) as their own types,
as ``torch.func``'s do (torch 2.13: ``grad(loss)(OrderedDict(...))`` is an ``OrderedDict``; ``vmap`` of a function
returning a deque is a deque); and a cotangent of another kind of dict than the output's is refused, as there.
Before, every dict came back a plain ``dict`` and a deque was not a container (vmap: "must only return Tensors")."""

from collections import OrderedDict, defaultdict, deque

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap


def x3():
    return mg.arange(3.0, dtype=mg.float64)


def test_an_ordered_dict_of_parameters_comes_back_ordered():
    model = mg.nn.Linear(3, 2, dtype=mg.float64)
    params = OrderedDict((k, v.detach()) for k, v in model.named_parameters())
    g = grad(lambda p: mg.func.functional_call(model, p, (x3(),)).sum())(params)
    assert type(g) is OrderedDict and list(g) == ["weight", "bias"]
    np.testing.assert_allclose(g["weight"].numpy(), np.tile(x3().numpy(), (2, 1)))
    g, (value, aux) = grad_and_value(lambda d: ((d["a"] ** 2).sum(), OrderedDict(aux=d["a"])), has_aux=True)(
        OrderedDict(a=x3()))
    assert type(g) is OrderedDict and type(aux) is OrderedDict


def test_the_jacobians_and_hessians_nest_ordered_dicts():
    h = hessian(lambda d: (d["a"] ** 3).sum() * d["b"].sum())(OrderedDict(a=x3(), b=x3() + 1))
    assert type(h) is OrderedDict and type(h["a"]) is OrderedDict and list(h["a"]) == ["a", "b"]
    for jac in (jacrev, jacfwd):
        j = jac(lambda d: OrderedDict(o=d["a"].sin()))(OrderedDict(a=x3()))
        assert type(j) is OrderedDict and type(j["o"]) is OrderedDict
        np.testing.assert_allclose(j["o"]["a"].numpy(), np.diag(np.cos(x3().numpy())))


def test_vmap_vjp_and_jvp_keep_the_container_types():
    x = mg.arange(6.0, dtype=mg.float64).reshape(2, 3)
    r = vmap(lambda v: OrderedDict(b=v.sum(), a=v))(x)
    assert type(r) is OrderedDict and list(r) == ["b", "a"]
    d = defaultdict(list, a=x[0], b=x[1])
    g = grad(lambda d: (d["a"] * d["b"]).sum())(d)
    assert type(g) is defaultdict and g.default_factory is list and list(g) == ["a", "b"]
    r = vmap(lambda v: deque([v, v.sum()], maxlen=3))(x)
    assert type(r) is deque and r.maxlen == 3 and r[1].tolist() == [3.0, 12.0]
    assert vmap(lambda d: d[0] * d[1])(deque([x, x])).tolist() == (x * x).tolist()
    out, t = jvp(lambda v: OrderedDict(s=v.sin()), (x[0],), (x[1],))
    assert type(out) is OrderedDict and type(t) is OrderedDict
    out, vjp_fn = vjp(lambda v: OrderedDict(s=v.sin()), x[0])
    assert type(out) is OrderedDict
    np.testing.assert_allclose(vjp_fn(OrderedDict(s=mg.ones(3, dtype=mg.float64)))[0].numpy(), np.cos(x[0].numpy()))
    with pytest.raises(RuntimeError, match="structure"):  # PyTorch's: a dict is not the OrderedDict's structure
        vjp_fn({"s": mg.ones(3, dtype=mg.float64)})
    assert vmap(lambda d: d["a"] * 2, in_dims=({"a": 0},))(OrderedDict(a=x)).shape == (2, 3)  # as PyTorch's
