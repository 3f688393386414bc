"""The objects ``tests/data/make_torch_save_load_kinds.py`` saves and loads with PyTorch, and
``tests/test_save_load_kinds.py`` with minigrad_ckpt: one function of the library (``torch`` or
``minigrad_ckpt``), so both build the same objects; and ``describe``, what a loaded object is --
its types all the way down -- in words both libraries share."""

from __future__ import annotations

from collections import OrderedDict


def cases(lib):
    """name -> object, built with ``lib``'s tensors, parameters and dtypes."""
    t = lib.arange(3, dtype=lib.float32)
    linear = lib.nn.Linear(2, 2)
    with lib.no_grad():
        linear.weight.fill_(0.5)
        linear.bias.fill_(-1.0)
    return {
        "ordered_dict": OrderedDict([("b", t), ("a", 1)]),
        "state_dict": linear.state_dict(),
        "parameter": lib.nn.Parameter(lib.ones(2)),
        "frozen_parameter": lib.nn.Parameter(lib.ones(2), requires_grad=False),
        "parameters_in_a_list": [lib.nn.Parameter(lib.ones(1)), lib.ones(1, requires_grad=True)],
        "set": {1, "a", (2, 3)},
        "frozenset": frozenset({1.5, None}),
        "bytes": b"\x00\xff",
        "bytearray": bytearray(b"ab"),
        "complex": 1.5 - 2j,
        "big_int": 2**70,
        "negative_big_int": -(2**63) - 1,
        "uint64_max": 2**64 - 1,
        "dtypes": {"half": lib.float16, "double": lib.float64, "long": lib.int64, "cfloat": lib.complex64},
        "bool_key": {True: 1, False: t},
        "float_key": {1.5: "x", -0.0: "y"},
        "none_key": {None: 1},
        "tuple_key": {(1, "a"): t, (2, (3, b"z")): 0},
        "frozenset_key": {frozenset({1, 2}): 3},
        "big_int_key": {2**80: "big"},
        "numpy_rng_state": {"bit_generator": "PCG64", "state": {"state": 2**127 + 12345, "inc": 2**100 + 1},
                            "has_uint32": 0, "uinteger": 0},
        "nested": OrderedDict(outer={"inner": [t, (t, {2, 3})], 7: frozenset({(1, 2)})}),
    }


def views(lib):
    """Tensors sharing one storage -- a tensor, a slice of it, a transposed view -- and a tensor of a
    storage of its own (PyTorch refuses views of one storage as different dtypes; mg.save keeps them)."""
    x = lib.arange(6, dtype=lib.float32)
    return {"x": x, "slice": x[1:3], "t": x.view(2, 3).t(), "own": x[:2].clone()}


def write_through(loaded, lib):
    """Write into the loaded ``x`` and ``t``: what changes where shows which memory is shared."""
    with lib.no_grad():
        loaded["x"][1] = 100.0
        loaded["t"][2, 1] = -1.0  # x[5]
    return describe(loaded)


def describe(obj):
    """What ``obj`` is, as nested plain data: containers by type name with their contents (sets
    sorted by their description), tensors by class, dtype and requires_grad, values by type and repr."""
    kind = type(obj).__name__
    if kind in ("Tensor", "Parameter"):
        return [kind, str(obj.dtype).replace("torch.", ""), bool(obj.requires_grad), obj.tolist()]
    if kind in ("dict", "OrderedDict"):
        return [kind, [[describe(k), describe(v)] for k, v in obj.items()]]
    if kind in ("list", "tuple"):
        return [kind, [describe(v) for v in obj]]
    if kind in ("set", "frozenset"):
        return [kind, sorted((describe(v) for v in obj), key=repr)]
    if kind == "dtype" or type(obj).__module__.startswith("numpy"):  # torch.float16 / NumPy's float16
        return ["dtype", str(obj).replace("torch.", "")]
    return [kind, repr(obj)]
