"""Plan types: which layers of a chain are checkpointed, and in which blocks.

A *plan* splits layers ``0..n-1`` into blocks; each block is either run
normally (*plain*: its nodes keep their saved values) or *checkpointed* (its
nodes keep nothing; the block keeps its input and any constants, and is
replayed once in backward).  This module holds the types and the plans that
need no measurements (equal chunks, given starts, merging); what a plan costs
in memory and time is :mod:`.model`'s business.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Block", "Plan", "InfeasibleBudgetError", "uniform_plan", "plan_from_starts", "coarsen"]


class InfeasibleBudgetError(ValueError):
    """No plan fits the byte budget; ``smallest_feasible_bytes`` says what would."""

    def __init__(self, budget: int, smallest: int) -> None:
        super().__init__(
            f"no checkpoint plan keeps peak activation memory within {budget:,} bytes; the smallest "
            f"feasible budget for this model and input is {smallest:,} bytes"
        )
        self.budget, self.smallest_feasible_bytes = budget, smallest

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        # (an exception pickles as its class called with its args -- here the message alone, which
        # __init__ does not take: a worker process raising it, or a deepcopy, failed with TypeError)
        return type(self), (self.budget, self.smallest_feasible_bytes)


@dataclass(frozen=True)
class Block:
    """Layers ``start .. stop-1``, checkpointed or plain.

    A checkpointed block may nest: ``blocks`` are its inner blocks, covering
    ``start .. stop-1`` in order with absolute layer indices, and some of them
    checkpointed in turn.  Its replay in backward then runs only as far as the
    inner blocks need (an inner checkpointed block keeps its input and replays
    itself later), and fills in the values of its own plain layers -- segments
    inside replayed segments, the multi-level checkpointing of Revolve.
    No ``blocks`` means every layer inside is plain.
    """

    start: int
    stop: int
    checkpointed: bool
    blocks: tuple[Block, ...] = ()

    def __post_init__(self) -> None:
        # (frozen: the checked values are set through object.__setattr__, as dataclasses do)
        object.__setattr__(self, "start", layer_index(self.start, "Block start"))
        object.__setattr__(self, "stop", layer_index(self.stop, "Block stop"))
        if self.checkpointed not in (True, False):  # (NumPy's bools too)
            raise TypeError(f"Block: checkpointed is True or False, got {self.checkpointed!r}")
        object.__setattr__(self, "checkpointed", bool(self.checkpointed))
        object.__setattr__(self, "blocks", blocks_tuple(self.blocks, f"the inner blocks of Block({self.start}, "
                                                                     f"{self.stop})"))
        if not self.blocks:
            return
        if not self.checkpointed:
            raise ValueError(f"a plain block cannot hold inner blocks: {self}")
        at = self.start
        for b in self.blocks:
            if b.start != at or b.stop <= b.start:
                raise ValueError(f"the inner blocks of Block({self.start}, {self.stop}) must cover it in order, "
                                 f"with absolute layer indices: got {[(b.start, b.stop) for b in self.blocks]}")
            at = b.stop
        if at != self.stop:
            raise ValueError(f"the inner blocks of Block({self.start}, {self.stop}) end at {at}")

    @property
    def inner(self) -> tuple[Block, ...]:
        """The inner blocks, or one plain block per layer when none were given."""
        return self.blocks or tuple(Block(i, i + 1, False) for i in range(self.start, self.stop))

    @property
    def depth(self) -> int:
        """1 for a checkpointed block without checkpointed inner blocks, more for each level inside."""
        return int(self.checkpointed) + max((b.depth for b in self.blocks), default=0)

    def describe(self) -> str:
        """``[0:4]*``, or ``[0:8]*{[0:4]* [4:8]}`` when it nests."""
        own = f"[{self.start}:{self.stop}]" + ("*" if self.checkpointed else "")
        return own + ("{" + _describe(self.blocks) + "}" if self.blocks else "")


@dataclass
class Plan:
    """Blocks covering every layer in order, with the model's predictions."""

    blocks: tuple[Block, ...]
    predicted_peak_bytes: int | None = None
    recompute_seconds: float | None = None
    policy: str = ""

    def __post_init__(self) -> None:
        self.blocks = blocks_tuple(self.blocks, "a plan's blocks")
        check_covers(self.blocks)

    @property
    def n_layers(self) -> int:
        return self.blocks[-1].stop if self.blocks else 0

    @property
    def segments(self) -> list[tuple[int, int]]:
        """``(start, stop)`` of the checkpointed blocks."""
        return [(b.start, b.stop) for b in self.blocks if b.checkpointed]

    @property
    def n_segments(self) -> int:
        """Checkpointed blocks at every depth: the segments one step records and replays."""
        count, stack = 0, list(self.blocks)
        while stack:
            b = stack.pop()
            count += b.checkpointed
            stack.extend(b.blocks)
        return count

    @property
    def depth(self) -> int:
        """How deeply checkpointed blocks nest (0: none, 1: one level of segments)."""
        return max((b.depth for b in self.blocks), default=0)

    def describe(self) -> str:
        """``[0:4]* [4:8]*{[4:6]* [6:8]} [8:10]``: checkpointed blocks starred, their
        inner blocks in braces, plain layers merged into ranges."""
        peak = "" if self.predicted_peak_bytes is None else f", predicted peak {self.predicted_peak_bytes:,} B"
        return f"Plan({self.policy or 'custom'}: {_describe(self.blocks)} (* = checkpointed){peak})"

    __str__ = describe


def budget_in_bytes(value: object, who: str) -> int:
    """``value`` as a whole number of bytes: a finite real number (a float is rounded down, as
    ``int`` does), never a string, a bool or NaN -- those are a clear error, not a plan."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{who}: the budget is a number of bytes, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{who}: the budget is a number of bytes, got {value!r}")
    return int(value)


def layer_index(value: object, who: str) -> int:
    """``value`` as a layer index: a whole number (a NumPy integer too), never a float, a
    string or a bool -- a clear ``TypeError``, not a plan that skips or repeats layers."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{who} is a layer index (an int), got {type(value).__name__} {value!r}")
    return int(value)


def blocks_tuple(blocks: object, who: str) -> tuple[Block, ...]:
    """``blocks`` as a tuple of :class:`Block` (a list is taken; anything else is a ``TypeError``)."""
    if isinstance(blocks, (str, bytes)) or not hasattr(blocks, "__iter__"):
        raise TypeError(f"{who} are a sequence of Block, got {type(blocks).__name__}")
    out = tuple(blocks)
    wrong = [b for b in out if not isinstance(b, Block)]
    if wrong:
        raise TypeError(f"{who} are a sequence of Block, got {type(wrong[0]).__name__} {wrong[0]!r}")
    return out


def check_covers(blocks: Sequence[Block], n_layers: int | None = None) -> None:
    """``ValueError`` unless ``blocks`` cover layers ``0, 1, ...`` in order, each block at least
    one layer -- and, given ``n_layers``, all of them: a gap or a shorter plan would skip
    layers without a word, a longer one run past the chain's end."""
    at = 0
    for b in blocks:
        if b.start != at or b.stop <= b.start:
            raise ValueError(f"a plan's blocks must cover layers 0, 1, ... in order, each at least one layer: "
                             f"got {[(b.start, b.stop) for b in blocks]}")
        at = b.stop
    if n_layers is not None and at != n_layers:
        raise ValueError(f"the plan covers {at} layers, but there are {n_layers}")


def moved(blocks: tuple[Block, ...], by: int) -> tuple[Block, ...]:
    """``blocks`` with every layer index, inner blocks' too, ``by`` further on."""
    return tuple(Block(b.start + by, b.stop + by, b.checkpointed, moved(b.blocks, by)) for b in blocks)


def _describe(blocks: tuple[Block, ...]) -> str:
    parts = []
    plain_from = None
    end = blocks[-1].stop if blocks else 0
    for b in blocks + (Block(end, end, True),):
        if not b.checkpointed:
            plain_from = b.start if plain_from is None else plain_from
            continue
        if plain_from is not None:
            parts.append(f"[{plain_from}:{b.start}]")
            plain_from = None
        if b.stop > b.start:
            parts.append(b.describe())
    return " ".join(parts)


def uniform_plan(n_layers: int, n_segments: int, checkpoint_last: bool = False, policy: str = "") -> Plan:
    """``n_segments`` blocks of (nearly) equal length; the last one plain unless asked."""
    n_layers, n_segments = layer_index(n_layers, "uniform_plan: n_layers"), layer_index(n_segments, "uniform_plan: "
                                                                                          "n_segments")
    if n_layers < 0 or n_segments < 1:
        raise ValueError(f"uniform_plan needs n_layers >= 0 and n_segments >= 1, got n_layers={n_layers}, "
                         f"n_segments={n_segments}")
    if n_layers == 0:  # (an empty Sequential: nothing to run)
        return Plan((), policy=policy)
    n_segments = max(1, min(n_segments, n_layers))
    size = math.ceil(n_layers / n_segments)
    starts = list(range(0, n_layers, size))
    blocks = []
    for i, s in enumerate(starts):
        e = min(s + size, n_layers)
        last = i == len(starts) - 1
        blocks.append(Block(s, e, checkpoint_last or not last))
    return Plan(tuple(_split_plain(blocks)), policy=policy)


def plan_from_starts(n_layers: int, starts: Sequence[int], policy: str = "") -> Plan:
    """Checkpointed blocks starting at ``starts`` (0 is implied); the last block plain."""
    cuts = sorted({0, *(int(s) for s in starts if 0 <= int(s) < n_layers)})
    blocks = []
    for i, s in enumerate(cuts):
        e = cuts[i + 1] if i + 1 < len(cuts) else n_layers
        blocks.append(Block(s, e, i + 1 < len(cuts)))
    return Plan(tuple(_split_plain(blocks)), policy=policy)


def _split_plain(blocks: list[Block]) -> list[Block]:
    out = []
    for b in blocks:
        if b.checkpointed:
            out.append(b)
        else:
            out.extend(Block(i, i + 1, False) for i in range(b.start, b.stop))
    return out


def coarsen(plan: Plan, max_checkpoints: int) -> Plan:
    """Merge neighbouring checkpointed blocks until at most ``max_checkpoints`` remain.

    Merging keeps every value recoverable (a bigger block replays more); it
    only trades memory for fewer kept inputs.
    """
    if max_checkpoints < 1:
        raise ValueError(f"max_checkpoints must be at least 1, got {max_checkpoints}")
    blocks = list(plan.blocks)
    while sum(b.checkpointed for b in blocks) > max_checkpoints:
        best = None
        for i in range(len(blocks) - 1):
            a, b = blocks[i], blocks[i + 1]
            if a.checkpointed and b.checkpointed:
                size = (b.stop - a.start)
                if best is None or size < best[0]:
                    best = (size, i)
        if best is None:  # checkpointed blocks are separated by plain ones: absorb them
            i = next(i for i, b in enumerate(blocks) if b.checkpointed)
            j = next(j for j in range(i + 1, len(blocks)) if blocks[j].checkpointed)
            blocks[i:j + 1] = [Block(blocks[i].start, blocks[j].stop, True)]
            continue
        i = best[1]
        blocks[i:i + 2] = [Block(blocks[i].start, blocks[i + 1].stop, True)]
    return Plan(tuple(blocks), policy=f"{plan.policy} (max {max_checkpoints} checkpoints)")
