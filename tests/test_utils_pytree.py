"""``mg.utils._pytree`` answers as PyTorch 2.13's ``torch.utils._pytree`` (its Python implementation).

Libraries import the private module (x-transformers, HF accelerate and transformers, torchvision's
v2 transforms), so its leaves, TreeSpec reprs, equality, errors and JSON are PyTorch's: every
expected value below was printed by torch 2.13 on the same structure.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.utils._pytree as pytree

P = namedtuple("P", "x y")
Q = namedtuple("Q", "x y")


def nested() -> dict:
    return {"b": [1, None, (2, 3)], "a": OrderedDict(z=4, y=P(5, 6)), "d": defaultdict(list, {1: 7}),
            "q": deque([8, 9], maxlen=3)}


# torch.utils._pytree.tree_structure(nested()), its keystr paths and treespec_pprint (2.13)
NESTED_SPEC = ("TreeSpec(dict, ['b', 'a', 'd', 'q'], [TreeSpec(list, None, [*,\n    *,\n    TreeSpec(tuple, None, "
               "[*,\n      *])]),\n  TreeSpec(OrderedDict, ['z', 'y'], [*,\n    TreeSpec(namedtuple, <class "
               f"'{__name__}.P'>, [*,\n      *])]),\n  TreeSpec(defaultdict, [<class 'list'>, [1]], [*]),\n"
               "  TreeSpec(deque, 3, [*,\n    *])])")
NESTED_PATHS = ["['b'][0]", "['b'][1]", "['b'][2][0]", "['b'][2][1]", "['a']['z']", "['a']['y'].x", "['a']['y'].y",
                "['d'][1]", "['q'][0]", "['q'][1]"]
NESTED_PPRINT = ("{'b': [*, *, (*, *)], 'a': OrderedDict([('z', *), ('y', P(x=*, y=*))]), "
                 "'d': defaultdict(<class 'list'>, {1: *}), 'q': deque([*, *], maxlen=3)}")


def test_flatten_gives_torchs_leaves_and_spec():
    leaves, spec = pytree.tree_flatten(nested())
    assert leaves == [1, None, 2, 3, 4, 5, 6, 7, 8, 9]  # None is a leaf, as in torch's Python pytree
    assert repr(spec) == NESTED_SPEC
    assert (spec.num_leaves, spec.num_nodes, spec.num_children) == (10, 17, 4)
    assert pytree.treespec_pprint(spec) == NESTED_PPRINT


def test_unflatten_rebuilds_every_container_type():
    tree = nested()
    leaves, spec = pytree.tree_flatten(tree)
    back = pytree.tree_unflatten(leaves, spec)
    assert back == tree
    assert type(back["a"]) is OrderedDict and type(back["a"]["y"]) is P
    assert back["d"].default_factory is list and back["q"].maxlen == 3
    assert pytree.tree_unflatten(spec, leaves) == tree  # (torch takes the two in either order)


def test_key_paths_are_torchs():
    pairs, spec = pytree.tree_flatten_with_path(nested())
    assert [pytree.keystr(k) for k, _ in pairs] == NESTED_PATHS
    assert spec == pytree.tree_structure(nested())
    path = pairs[5][0]
    assert path == (pytree.MappingKey("a"), pytree.MappingKey("y"), pytree.GetAttrKey("x"))
    assert repr(path[0]) == "MappingKey(key='a')" and repr(pytree.SequenceKey(1)) == "SequenceKey(idx=1)"
    assert pytree.key_get(nested(), path) == 5
    assert pytree.tree_map_with_path(lambda k, v: pytree.keystr(k), [1, {"a": 2}]) == ["[0]", {"a": "[1]['a']"}]


def test_empty_and_leaf_trees():
    assert pytree.tree_flatten(None) == ([None], pytree.treespec_leaf())
    assert repr(pytree.tree_structure(None)) == "*"
    assert repr(pytree.tree_flatten([])[1]) == "TreeSpec(list, None, [])"
    assert pytree.tree_structure(5).is_leaf() and pytree.tree_is_leaf(None) and not pytree.tree_is_leaf([])


def test_tensors_are_leaves_and_shapes_are_nodes_as_torch_size():
    x = mg.ones(2, 3)
    leaves, spec = pytree.tree_flatten([x, x.shape])
    assert leaves[0] is x and leaves[1:] == [2, 3]
    assert repr(spec) == "TreeSpec(list, None, [*,\n  TreeSpec(Size, None, [*,\n    *])])"
    assert pytree.tree_map(lambda v: v * 2, x.shape) == (4, 6)  # (a plain tuple, as torch 2.13's Size node)


def test_return_types_are_nodes_of_their_own_type():
    result = mg.max(mg.ones(2, 2), dim=0)
    spec = pytree.tree_structure(result)
    assert repr(spec) == "TreeSpec(max, None, [*,\n  *])"  # torch.return_types.max's
    assert type(pytree.tree_map(lambda t: t, result)) is type(result)
    assert [pytree.keystr(k) for k, _ in pytree.tree_flatten_with_path(result)[0]] == ["[0]", "[1]"]
    assert pytree.is_structseq(result) and not pytree.is_namedtuple(result) and pytree.is_namedtuple(P(1, 2))
    with pytest.raises(NotImplementedError, match="No registered serialization name for"):
        pytree.treespec_dumps(spec)


def test_dict_keys_keep_insertion_order():
    a, b = pytree.tree_structure({"a": 1, "b": 2}), pytree.tree_structure({"b": 1, "a": 2})
    assert a != b
    assert pytree.tree_leaves({"b": 1, "a": 2}) == [1, 2]
    assert hash(a) == hash(pytree.tree_structure({"a": 5, "b": 6}))


def test_tree_map_takes_rests_with_the_tree_as_prefix():
    assert pytree.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]) == [[5, 7, 9], [6, 1, 2]]
    # dicts of the standard kinds match by keys, whatever the order or kind
    got = pytree.tree_map(lambda x, y: (x, y), {"a": 1, "b": 2}, OrderedDict(b=[1], a=2))
    assert got == {"a": (1, 2), "b": (2, [1])}
    assert pytree.tree_map(lambda x, y: y, deque([1], maxlen=2), deque([5])) == deque([5], maxlen=2)


@pytest.mark.parametrize(("tree", "other", "message"), [
    ({"a": 1}, {"b": 1}, "Node keys mismatch; missing key(s): {'a'}; extra key(s): {'b'}."),
    ([1, 2], (1, 2), "Node type mismatch; expected <class 'list'>, but got <class 'tuple'>."),
    ([1, 2], [1], "Node arity mismatch; expected 2, but got 1."),
])
def test_tree_map_mismatch_messages_are_torchs(tree, other, message):
    with pytest.raises(ValueError) as info:
        pytree.tree_map(lambda x, y: x, tree, other)
    assert str(info.value) == message


def test_named_tuple_classes_must_match():
    with pytest.raises(ValueError, match=f"expected <class '{__name__}.P'>, but got <class '{__name__}.Q'>"):
        pytree.tree_map(lambda x, y: x, P(1, 2), Q(1, 2))


def test_unflatten_errors_are_torchs():
    with pytest.raises(ValueError) as info:
        pytree.tree_unflatten([1, 2], pytree.tree_structure([0]))
    assert str(info.value) == ("treespec.unflatten(leaves): `leaves` has length 2 but the spec refers to a pytree "
                               "that holds 1 items (TreeSpec(list, None, [*])).")
    with pytest.raises(TypeError, match="Expected `treespec` to be an instance of PyTreeSpec but got item of type "
                                        "<class 'int'>."):
        pytree.tree_unflatten([1], 3)


def test_map_only_all_any():
    tree = [1, "a", 2.0, None, {"k": -3}]
    assert pytree.tree_map_only(int, lambda x: x * 10, tree) == [10, "a", 2.0, None, {"k": -30}]
    assert pytree.tree_map_only((int, str), lambda x: x * 2, tree)[:2] == [2, "aa"]
    assert pytree.tree_map_only(int | float, lambda x: 0, tree)[:3] == [0, "a", 0]
    assert pytree.tree_map_only(lambda x: x is None, lambda x: "N", tree)[3] == "N"
    assert not pytree.tree_all(lambda x: x is not None, tree) and pytree.tree_any(lambda x: x == 2, tree)
    assert not pytree.tree_all_only(int, lambda x: x > 0, tree) and pytree.tree_any_only(str, lambda x: True, tree)
    with pytest.raises(TypeError, match="Argument must be a type, a tuple of types, or a callable."):
        pytree.map_only(3)


def test_in_place_maps_return_the_tree_itself():
    tree = {"a": mg.zeros(2), "b": [mg.ones(1), 1]}
    assert pytree.tree_map_(lambda t: None, tree) is tree
    out = pytree.tree_map_only_(mg.Tensor, lambda t: t.add_(1), tree)
    assert out is tree and tree["a"].tolist() == [1.0, 1.0] and tree["b"][0].tolist() == [2.0]


def test_is_leaf_stops_the_descent():
    leaves, spec = pytree.tree_flatten([(1, 2), [3, (4,)]], is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), 3, (4,)]
    assert repr(spec) == "TreeSpec(list, None, [*,\n  TreeSpec(list, None, [*,\n    *])])"


class Box:
    def __init__(self, a, b):
        self.a, self.b = a, b


def test_registered_node_round_trips_and_refuses_a_second_registration():
    pytree.register_pytree_node(
        Box, lambda b: ([b.a, b.b], "ctx"), lambda v, c: Box(*v), serialized_type_name="tests.Box",
        flatten_with_keys_fn=lambda b: ([(pytree.GetAttrKey("a"), b.a), (pytree.GetAttrKey("b"), b.b)], "ctx"))
    try:
        leaves, spec = pytree.tree_flatten([Box(1, [2, 3])])
        assert leaves == [1, 2, 3]
        assert repr(spec) == "TreeSpec(list, None, [TreeSpec(Box, ctx, [*,\n    TreeSpec(list, None, [*,\n      *])])])"
        assert [pytree.keystr(k) for k, _ in pytree.tree_flatten_with_path([Box(1, 2)])[0]] == ["[0].a", "[0].b"]
        assert pytree.treespec_loads(pytree.treespec_dumps(spec)) == spec
        with pytest.raises(ValueError, match="is already registered as pytree node."):
            pytree.register_pytree_node(Box, lambda b: ([], None), lambda v, c: Box(0, 0))
        with pytest.raises(ValueError, match=r"Type mismatch; expected <class '.*Box'>, but got <class 'list'>."):
            pytree.tree_map(lambda x, y: x, Box(1, 2), [1, 2])
    finally:
        pytree._deregister_pytree_node(Box)


def test_a_node_without_keys_or_a_name_refuses_paths_and_dumps():
    class NoKeys:
        def __init__(self, a):
            self.a = a
    pytree.register_pytree_node(NoKeys, lambda b: ([b.a], None), lambda v, c: NoKeys(*v))
    try:
        with pytest.raises(ValueError, match="Did not find a flatten_with_keys_fn for type"):
            pytree.tree_flatten_with_path([NoKeys(1)])
        with pytest.raises(NotImplementedError, match="No registered serialization name for"):
            pytree.treespec_dumps(pytree.tree_structure(NoKeys(1)))
    finally:
        pytree._deregister_pytree_node(NoKeys)


@dataclasses.dataclass
class Point:
    x: object
    y: object = None
    z: int = dataclasses.field(default=0, init=False)


def test_register_dataclass_skips_none_fields():
    pytree.register_dataclass(Point)
    try:
        leaves, spec = pytree.tree_flatten(Point(1, None))
        assert leaves == [1]
        assert repr(spec) == "TreeSpec(Point, [['x'], ['y']], [*])"
        assert pytree.tree_map(lambda v: v * 10, Point([1, 2], 3)) == Point([10, 20], 30)
        assert [pytree.keystr(k) for k, _ in pytree.tree_flatten_with_path(Point(1, 2))[0]] == [".x", ".y"]
    finally:
        pytree._deregister_pytree_node(Point)
    with pytest.raises(ValueError, match="field_names must be specified"):
        pytree.register_dataclass(Box)


def test_dumps_is_torchs_json():
    spec = pytree.tree_structure({"a": [1, (2, None)], "q": deque([1], maxlen=4), "o": OrderedDict(c=3)})
    assert pytree.treespec_dumps(spec) == (
        '[1, {"type": "builtins.dict", "context": "[\\"a\\", \\"q\\", \\"o\\"]", "children_spec": [{"type": '
        '"builtins.list", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": '
        '[]}, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": null, "context": null, '
        '"children_spec": []}, {"type": null, "context": null, "children_spec": []}]}]}, {"type": '
        '"collections.deque", "context": "4", "children_spec": [{"type": null, "context": null, "children_spec": '
        '[]}]}, {"type": "collections.OrderedDict", "context": "[\\"c\\"]", "children_spec": [{"type": null, '
        '"context": null, "children_spec": []}]}]}]')
    assert pytree.treespec_loads(pytree.treespec_dumps(spec)) == spec
    dd = pytree.tree_structure(defaultdict(list, a=1))
    assert pytree.treespec_dumps(dd) == (
        '[1, {"type": "collections.defaultdict", "context": {"default_factory_module": "builtins", '
        '"default_factory_name": "list", "dict_context": ["a"]}, "children_spec": [{"type": null, "context": null, '
        '"children_spec": []}]}]')
    assert pytree.treespec_loads(pytree.treespec_dumps(dd)) == dd
    with pytest.raises(NotImplementedError, match="Can't serialize TreeSpec of namedtuple class"):
        pytree.treespec_dumps(pytree.tree_structure(P(1, 2)))
    with pytest.raises(ValueError, match=r"Unknown protocol 2. Available protocols: \[1\]"):
        pytree.treespec_loads("[2, {}]")


def test_treespec_is_frozen_copyable_and_picklable():
    spec = pytree.tree_structure(nested())
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.type = tuple
    assert copy.deepcopy(spec) == spec and pickle.loads(pickle.dumps(spec)) == spec
    assert pytree.tree_structure([1, (2,)]).child(1) == pytree.treespec_tuple([pytree.treespec_leaf()])
    assert pytree.treespec_dict(a=pytree.treespec_leaf()) == pytree.tree_structure({"a": 0})
    assert pytree._broadcast_to_and_flatten([0, 1], pytree.tree_structure([[1, 2], (3,)])) == [0, 0, 1]
    assert pytree._broadcast_to_and_flatten([0], pytree.tree_structure([1, 2])) is None


def test_deprecations_warn_at_the_users_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = pytree.LeafSpec()
        pytree.tree_structure([1]).children_specs  # noqa: B018
    assert spec.is_leaf() and isinstance(pytree.tree_structure(1), pytree.LeafSpec)
    assert [w.category for w in caught] == [FutureWarning, FutureWarning]
    assert all(w.filename == __file__ for w in caught)
