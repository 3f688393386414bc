"""Pytrees: the nested tuples, lists and dicts of tensors the transforms take and return.

JAX's word for "a container of arrays".  A transform flattens its arguments
into a list of *leaves* (the tensors it differentiates), works on the flat
list, and rebuilds the caller's structure for the results::

    leaves, tree = flatten({"w": w, "b": (b1, b2)}, "grad", "argument 0")
    grads = [...]                       # one tensor per leaf, in the same order
    unflatten(tree, grads)              # {"w": gw, "b": (gb1, gb2)}

A leaf is anything that is not a tuple, list, dict, ``collections.deque`` or
``None`` (``None`` is an empty container, as in JAX).  Dict keys keep their
insertion order; a named tuple (``mg.linalg.slogdet``'s ``(sign, logabsdet)``),
an ``OrderedDict`` (``model.state_dict()``), a ``defaultdict`` (its default
factory too) and a deque (its ``maxlen``) come back as their own types, as
``torch.func``'s pytrees rebuild them.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict, deque
from dataclasses import dataclass
from typing import Any

from ..tensor import Tensor

__all__ = ["Tree", "flatten", "unflatten", "paths", "tensor_leaves"]


@dataclass(frozen=True)
class Tree:
    """The shape of a pytree without its leaves: what :func:`unflatten` rebuilds."""

    kind: str                         # "leaf", "tuple", "list", "dict", "namedtuple", "deque" or "none"
    children: tuple[Tree, ...] = ()
    keys: tuple = ()                  # a dict's keys, in order; a named tuple's (type,); a deque's (maxlen,)
    #: a dict's own type, where it is not a plain dict: (OrderedDict,) or (defaultdict, its default_factory);
    #: compared by value, so two structures of the same kind of dict are equal (vjp's cotangents)
    container: tuple = ()

    @property
    def n_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.n_leaves for c in self.children)


_LEAF = Tree("leaf")


def flatten(tree: Any) -> tuple[list[Any], Tree]:
    """``(leaves, structure)``: ``tree``'s leaves in depth-first order."""
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> Tree:
    if tree is None:
        return Tree("none")
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):  # a named tuple: rebuilt as its type
        return Tree("namedtuple", tuple(_flatten(t, leaves) for t in tree), (type(tree),))
    if isinstance(tree, (tuple, list)):
        return Tree("list" if isinstance(tree, list) else "tuple", tuple(_flatten(t, leaves) for t in tree))
    if isinstance(tree, dict):
        container = ((defaultdict, tree.default_factory) if isinstance(tree, defaultdict)
                     else (OrderedDict,) if isinstance(tree, OrderedDict) else ())
        return Tree("dict", tuple(_flatten(v, leaves) for v in tree.values()), tuple(tree), container)
    if isinstance(tree, deque):
        return Tree("deque", tuple(_flatten(t, leaves) for t in tree), (tree.maxlen,))
    leaves.append(tree)
    return _LEAF


def unflatten(tree: Tree, leaves: Any) -> Any:
    """The pytree of shape ``tree`` with ``leaves`` (consumed in order) in its leaves."""
    it = iter(leaves)
    out = _unflatten(tree, it)
    if next(it, _END) is not _END:
        raise ValueError("unflatten: more leaves than the structure holds")
    return out


_END = object()


def _unflatten(tree: Tree, it: Any) -> Any:
    if tree.kind == "leaf":
        leaf = next(it, _END)
        if leaf is _END:
            raise ValueError("unflatten: fewer leaves than the structure holds")
        return leaf
    if tree.kind == "none":
        return None
    children = [_unflatten(c, it) for c in tree.children]
    if tree.kind == "dict":
        pairs = zip(tree.keys, children)
        if tree.container[:1] == (defaultdict,):
            return defaultdict(tree.container[1], pairs)
        return OrderedDict(pairs) if tree.container else dict(pairs)
    if tree.kind == "namedtuple":
        return tree.keys[0](*children)
    if tree.kind == "deque":
        return deque(children, maxlen=tree.keys[0])
    return tuple(children) if tree.kind == "tuple" else children


def paths(tree: Tree, prefix: str = "") -> list[str]:
    """A readable path for each leaf (``output['b'][1]``), for error messages."""
    if tree.kind == "leaf":
        return [prefix]
    if tree.kind == "none":
        return []
    out = []
    for i, c in enumerate(tree.children):
        if tree.kind == "namedtuple":
            out.extend(paths(c, f"{prefix}.{tree.keys[0]._fields[i]}"))
            continue
        key = repr(tree.keys[i]) if tree.kind == "dict" else str(i)
        out.extend(paths(c, f"{prefix}[{key}]"))
    return out


def tensor_leaves(tree: Any, what: str, name: str) -> tuple[list[Tensor], Tree]:
    """:func:`flatten`, insisting that every leaf is a Tensor (a value to differentiate).

    A Python number or anything else where a differentiable value is needed is
    a ``RuntimeError`` (``torch.func``'s type) that names where it sits in the structure.
    """
    leaves, structure = flatten(tree)
    if what != "linearize":  # (torch.func's linearize takes them; its other transforms refuse, 2.13)
        if _holds_none(structure):
            raise RuntimeError(f"{what}: {name} holds None, not a Tensor; a differentiable value must be a "
                               f"Tensor or a tuple of Tensors (return None as auxiliary data, has_aux=True)")
        if not leaves:
            raise RuntimeError(f"{what}: expected the function to have a non-empty output (got {tree!r}): "
                               f"there is nothing to differentiate")
    for leaf, path in zip(leaves, paths(structure, name)):
        if not isinstance(leaf, Tensor):
            raise RuntimeError(
                f"{what}: {path} is a {type(leaf).__name__}, not a Tensor; a differentiable "
                f"value must be a Tensor or a tuple of Tensors (or any list, dict or tuple of them): "
                f"wrap a number with mg.tensor(...), or return it as auxiliary data (has_aux=True)")
    return leaves, structure


def _holds_none(tree: Tree) -> bool:
    return tree.kind == "none" or any(_holds_none(c) for c in tree.children)
