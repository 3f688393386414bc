"""A sampler whose ``__len__`` raises NotImplementedError (an endless sampler's habit, and the abstract
``__len__`` of older samplers): PyTorch's loader iterates it without asking its length -- torch 2.13:
``[b.tolist() for b in DataLoader(list(range(4)), batch_size=2, sampler=S())] == [[3, 1], [2, 0]]``
for ``S`` yielding 3, 1, 2, 0 -- and only ``len(loader)`` raises.  Before, iterating raised
NotImplementedError (the loader asked the length to decide whether to list the epoch)."""

from __future__ import annotations

import pytest

from minigrad_ckpt.utils.data import DataLoader, Sampler


class Unmeasured(Sampler):
    def __init__(self) -> None:
        super().__init__(None)

    def __iter__(self):
        return iter([3, 1, 2, 0])

    def __len__(self) -> int:
        raise NotImplementedError


@pytest.mark.parametrize("workers", [0, 2])
def test_a_sampler_whose_length_is_not_implemented_is_iterated_as_pytorchs(workers):
    loader = DataLoader(list(range(4)), batch_size=2, sampler=Unmeasured(), num_workers=workers)
    assert [b.tolist() for b in loader] == [[3, 1], [2, 0]]
    assert [i for i in DataLoader(list(range(4)), batch_size=None, sampler=Unmeasured())] == [3, 1, 2, 0]
    with pytest.raises(NotImplementedError):  # the length itself: PyTorch's error too
        len(loader)


class OnlyIterates(Sampler):
    def __iter__(self):
        return iter([2, 0, 1])


def test_a_sampler_without_a_len_is_unsized_and_truthy_as_pytorchs():
    """torch 2.13's base Sampler has no ``__len__``: a subclass that defines only ``__iter__`` is truthy
    (``sampler or default`` keeps it) and not ``collections.abc.Sized``; ``len()`` is Python's TypeError.
    Before, the base class's ``__len__`` raised, so ``bool(sampler)`` raised TypeError and the
    sampler claimed to be Sized."""
    from collections.abc import Sized

    s = OnlyIterates()
    assert bool(s) and (s or None) is s
    assert not isinstance(s, Sized) and not isinstance(Sampler(), Sized)
    with pytest.raises(TypeError, match="has no len"):
        len(s)
    assert list(s) == [2, 0, 1]
    loader = DataLoader(list(range(3)), batch_size=2, sampler=s)
    assert [b.tolist() for b in loader] == [[2, 0], [1]]
    with pytest.raises(TypeError):
        len(loader)
