"""``nn.Module`` API calls that PyTorch refuses or answers in words of its own, written once against a
namespace argument (``torch`` or ``minigrad_ckpt``): make_torch_module_api_messages.py records what torch
2.13 answers for each (the exception's type and message, or the value), tests/test_module_api_messages.py
checks the engine answers the same."""

from __future__ import annotations

from collections import OrderedDict


def _net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))


def _instance_norm_load(lib, strict: bool, versioned: bool = False, module_by_module: bool = False):
    """An InstanceNorm without running stats loading a state dict with them: no version metadata
    (a checkpoint from before PyTorch 0.4) is refused even when not strict."""
    nn = lib.nn

    class Renamed(nn.Linear):  # a ``_load_from_state_dict`` override: PyTorch's module-by-module loading
        def _load_from_state_dict(self, state_dict, prefix, *rest):
            super()._load_from_state_dict(state_dict, prefix, *rest)

    norm = nn.InstanceNorm1d(3, affine=True)
    model = nn.Sequential(Renamed(2, 2), norm) if module_by_module else norm
    source = nn.InstanceNorm1d(3, affine=True, track_running_stats=True)
    saved = (nn.Sequential(nn.Linear(2, 2), source) if module_by_module else source).state_dict()
    state = saved if versioned else OrderedDict(saved)  # a plain copy carries no ``_metadata``
    keys = model.load_state_dict(state, strict=strict)
    return sorted(keys.missing_keys), sorted(keys.unexpected_keys)


def _register(lib, how: str, name, value=None):
    m = lib.nn.Module()
    if how == "module":
        m.add_module(name, value if value is not None else lib.nn.ReLU())
    elif how == "buffer":
        m.register_buffer(name, value if value is not None else lib.zeros(1))
    else:
        m.register_parameter(name, lib.nn.Parameter(lib.zeros(1)))


def _buffer(lib, how: str):
    """``nn.Buffer`` assigned to a module's attribute: what it registers, or what is refused."""
    nn = lib.nn
    m = nn.Module()
    if how == "persistent":
        m.a = nn.Buffer(lib.zeros(2))
    elif how == "not_persistent":
        m.a = nn.Buffer(lib.zeros(2), persistent=False)
    elif how == "over_a_non_persistent_buffer":
        m.register_buffer("a", lib.zeros(1), persistent=False)
        m.a = nn.Buffer(lib.ones(1))
    elif how == "over_a_plain_attribute":
        m.a = 3
        m.a = nn.Buffer(lib.zeros(1))
    elif how == "over_a_parameter":  # a TypeError (PyTorch's words name torch.FloatTensor)
        m = nn.Linear(1, 1)
        try:
            m.weight = nn.Buffer(lib.zeros(1, 1))
        except TypeError:
            return "TypeError"
    return list(m.state_dict()), sorted(n for n, _ in m.named_buffers()), sorted(m._non_persistent_buffers_set)


def _buffer_before_init(lib):
    class Early(lib.nn.Module):
        def __init__(self):
            self.a = lib.nn.Buffer(lib.zeros(1))
    Early()


def _buffer_made(lib):
    t = lib.ones(2, requires_grad=True)
    b = lib.nn.Buffer(t * 2)
    return (type(b).__name__, isinstance(b, lib.nn.Buffer), isinstance(t, lib.nn.Buffer), b.requires_grad,
            b.grad_fn is None, b.persistent, tuple(lib.nn.Buffer().shape), isinstance(b, lib.nn.parameter.Buffer))


def _dir_has_members(lib):
    nn = lib.nn
    return ("0" in dir(nn.Sequential(nn.ReLU())), "0" in dir(nn.ModuleList([nn.ReLU()])),
            "0" in dir(nn.ParameterList([nn.Parameter(lib.zeros(1))])), "a" in dir(nn.ModuleDict({"a": nn.ReLU()})),
            "a" in dir(nn.ParameterDict({"a": nn.Parameter(lib.zeros(1))})))


# name: function of the namespace
CASES = {
    "sequential_index_out_of_range": lambda lib: lib.nn.Sequential(lib.nn.ReLU())[3],
    "module_list_index_out_of_range": lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])[-2],
    "sequential_str_index": lambda lib: lib.nn.Sequential(lib.nn.ReLU())["0"],
    "module_list_extend_not_iterable": lambda lib: lib.nn.ModuleList().extend(lib.nn.ReLU()),
    "module_list_append_int": lambda lib: lib.nn.ModuleList().append(3),
    "module_dict_update_int": lambda lib: lib.nn.ModuleDict().update(3),
    "module_dict_update_element_not_iterable": lambda lib: lib.nn.ModuleDict().update([lib.nn.ReLU()]),
    "module_dict_update_pair_length": lambda lib: lib.nn.ModuleDict().update([("a", lib.nn.ReLU(), 1)]),
    "module_dict_set_int": lambda lib: lib.nn.ModuleDict().__setitem__("a", 3),
    "module_dict_set_ordered_dict": lambda lib: lib.nn.ModuleDict().__setitem__("a", OrderedDict()),
    "dir_has_members": _dir_has_members,
    "repr_multihead_attention": lambda lib: repr(lib.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)),
    "repr_transformer_encoder_layer": lambda lib: repr(lib.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)),
    "repr_transformer_decoder_layer": lambda lib: repr(lib.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8)),
    "out_proj_is_a_linear": lambda lib: (lambda p: (type(p).__name__, isinstance(p, lib.nn.Linear)))(
        lib.nn.MultiheadAttention(4, 2).out_proj),
    "buffer_made": _buffer_made,
    "buffer_before_init": _buffer_before_init,
    "buffer_persistent": lambda lib: _buffer(lib, "persistent"),
    "buffer_not_persistent": lambda lib: _buffer(lib, "not_persistent"),
    "buffer_over_a_non_persistent_buffer": lambda lib: _buffer(lib, "over_a_non_persistent_buffer"),
    "buffer_over_a_plain_attribute": lambda lib: _buffer(lib, "over_a_plain_attribute"),
    "buffer_over_a_parameter": lambda lib: _buffer(lib, "over_a_parameter"),
    "instance_norm_old_stats_not_strict": lambda lib: _instance_norm_load(lib, strict=False),
    "instance_norm_old_stats_strict": lambda lib: _instance_norm_load(lib, strict=True),
    "instance_norm_versioned_stats": lambda lib: _instance_norm_load(lib, strict=False, versioned=True),
    "instance_norm_old_stats_module_by_module":
        lambda lib: _instance_norm_load(lib, strict=False, module_by_module=True),
    "load_state_dict_of_a_list": lambda lib: _net(lib).load_state_dict([1, 2]),
    "add_module_named_as_a_method": lambda lib: _register(lib, "module", "train"),
    "register_buffer_named_as_a_method": lambda lib: _register(lib, "buffer", "forward"),
    "register_parameter_named_as_a_method": lambda lib: _register(lib, "parameter", "apply"),
    "add_module_dotted": lambda lib: _register(lib, "module", "a.b"),
    "register_buffer_dotted": lambda lib: _register(lib, "buffer", "a.b"),
    "register_parameter_dotted": lambda lib: _register(lib, "parameter", "a.b"),
    "register_buffer_of_an_int": lambda lib: _register(lib, "buffer", "x", 3),
    "get_submodule_of_a_parameter": lambda lib: _net(lib).get_submodule("0.weight"),
    "get_submodule_missing": lambda lib: _net(lib).get_submodule("2.5"),
    "get_parameter_of_a_buffer": lambda lib: _net(lib).get_parameter("1.running_mean"),
    "get_parameter_of_a_module": lambda lib: _net(lib).get_parameter("2"),
    "get_parameter_missing": lambda lib: _net(lib).get_parameter("0.foo"),
    "get_buffer_of_a_parameter": lambda lib: _net(lib).get_buffer("0.weight"),
    "get_buffer_missing": lambda lib: _net(lib).get_buffer("1.foo"),
    "forward_not_defined": lambda lib: lib.nn.Module()(1),
    "module_list_called": lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])(1),
}


def answer(lib, name: str) -> list:
    """``["value", repr]`` or ``["raised", type name, message]`` for one case."""
    try:
        return ["value", repr(CASES[name](lib))]
    except Exception as e:  # noqa: BLE001 -- recording whatever is raised is the point
        return ["raised", type(e).__name__, e.args[0] if e.args else ""]
