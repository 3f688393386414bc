"""``mg.viz.to_dot`` writes names it does not choose -- a leaf's or the output's label from
``names``, a custom Function's class name, an op's attributes -- inside quoted DOT labels.  A quote
in one ended the label, and the rest was read as DOT (``'w"]; evil [label="x'`` drew a node of its
own); a backslash started DOT's codes (``\\G`` is the graph's name); a line break split the
statement.  Each is escaped now, so every statement is one well-formed line and each label reads
back as the text given."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg

_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_STATEMENT = re.compile(rf'^  (\w+) \[(?:[\w-]+=(?:{_QUOTED}|[\w#.]+)(?:, )?)*\];$')
_EDGE = re.compile(r'^  \w+ -> \w+( \[.*\])?;$')
_HOSTILE = ['w"]; evil [label="x', "back\\slash \\G \\N", "two\nlines", "tab\there", "lone \ud800", "<b>&amp;"]


def _labels(dot: str) -> dict[str, str]:
    """Every node statement's label, unescaped; fails on a line that is no one statement."""
    labels = {}
    for line in dot.splitlines()[3:-1]:
        m = _STATEMENT.match(line)
        if m is None:
            assert _EDGE.match(line), line
            continue
        label = re.search(rf"label={_QUOTED}\];$", line).group(1)
        labels[m.group(1)] = re.sub(r"\\(.)", lambda c: "\n" if c.group(1) == "n" else c.group(1), label)
    return labels


@pytest.mark.parametrize("name", _HOSTILE)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_names_read_back_as_given(name, dtype):
    x = mg.tensor(np.array([1.0, 2.0], dtype=dtype), requires_grad=True)
    y = (x * x).sum()
    labels = _labels(mg.viz.to_dot(y, names={id(x): name, id(y): name}))
    shown = name.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate: its escape
    assert labels["leaf0"].startswith(shown + "\n") and labels["out"].startswith(shown + "\n")
    assert "evil" not in labels


@pytest.mark.parametrize("class_name", ['Q"uote', "Back\\slash"])
def test_a_custom_functions_name_reads_back_as_given(class_name):
    fn = type(class_name, (mg.autograd.Function,), {
        "forward": staticmethod(lambda ctx, a: a * 2), "backward": staticmethod(lambda ctx, g: g * 2)})
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = fn.apply(x).sum()
    labels = _labels(mg.viz.to_dot(y))
    assert any(class_name in label for label in labels.values())


def test_an_attribute_with_a_quote_reads_back_as_given():
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = mg.einsum("ij->j", x).sum()  # an op attribute that is a string: its repr has quotes
    labels = _labels(mg.viz.to_dot(y))
    assert any("'ij->j'" in label for label in labels.values())
