"""PyTorch's ``torch.return_types``: one class for each function of several results, named as the
function (``max``, ``sort``, ``linalg_svd``), so that a result says which function made it.

Each is a subclass of the engine's named tuple of those fields (``ValuesIndices`` for ``max``,
``sort``, ``topk``, ...; ``SVDResult`` for ``linalg_svd``), so it keeps a named tuple's whole API
(``_fields``, ``_asdict``, ``_replace``, ``R(values, indices)``) and adds what PyTorch's
``torch.return_types`` classes (C "struct sequences") do differently: they are built from *one*
sequence of the fields (``type(r)(map(f, r))``, the way generic code rebuilds a result), their repr
names the function and puts each field on a line, and they count their fields in ``n_fields``.

Each function has a second class, ``<name>_out``, for what it answers when given ``out=`` (the tuple
of the tensors written): PyTorch's ``torch.max(x, 1, out=(v, i))`` is a ``torch.return_types.max_out``,
a sibling of ``max``, not a subclass, so code that tells the two calls apart by the class sees the same
here.

The classes live here, below every function that makes one; ``minigrad_ckpt.return_types`` (the
name their ``__module__`` gives, where pickle finds them) offers them by name, as PyTorch's module.
"""

from __future__ import annotations

from typing import Any

#: Where the classes are offered (their ``__module__``: pickle looks them up there)
MODULE = "minigrad_ckpt.return_types"
#: Every class made, by its PyTorch name
BY_NAME: dict[str, type] = {}


def return_type(base: type, name: str) -> type:
    """The class ``torch.return_types.<name>`` of ``base``'s fields (made once; one name, one class)."""
    known = BY_NAME.get(name)
    if known is None:
        known = BY_NAME[name] = _struct_sequence(base, name)
        # (what out= answers: out_arguments sits below this module, so it finds the class on the answer)
        known._answer_given_out = BY_NAME[f"{name}_out"] = _struct_sequence(base, f"{name}_out")
    if known.__bases__ != (base,):
        raise TypeError(f"return_types.{name} is already a {known.__bases__[0].__name__}, not a {base.__name__}")
    return known


def _struct_sequence(base: type, name: str) -> type:
    """A subclass of the named tuple ``base`` that behaves as PyTorch's struct sequence ``name``."""
    count = len(base._fields)  # type: ignore[attr-defined]

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:  # noqa: N807
        if len(args) == 1 and not kwargs:  # PyTorch's spelling: one sequence holding every field
            args = tuple(args[0])
            if len(args) != count:
                raise TypeError(f"{MODULE}.{name}() takes a {count}-sequence ({len(args)}-sequence given)")
        return base.__new__(cls, *args, **kwargs)

    def __repr__(self: tuple) -> str:  # noqa: N807
        fields = ",\n".join(f"{field}={value!r}" for field, value in zip(base._fields, self))  # type: ignore[attr-defined]
        return f"{MODULE}.{name}(\n{fields})"

    doc = (f"PyTorch's ``torch.return_types.{name}``: a :class:`{base.__name__}` "
           f"({', '.join(base._fields)}), built from one sequence of them as well.")  # type: ignore[attr-defined]
    return type(name, (base,), {
        "__slots__": (), "__new__": __new__, "__repr__": __repr__, "__doc__": doc, "__module__": MODULE,
        "__qualname__": name, "n_fields": count, "n_sequence_fields": count, "n_unnamed_fields": 0})
