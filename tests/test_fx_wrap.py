"""``mg.fx.wrap``: timm's ``layers/attention.py`` and ``pos_embed.py`` mark helpers ``@torch.fx.wrap`` at
module level, so the import of every timm layer ran the decorator -- and stopped on the missing ``torch.fx``.
The marker gives back what it marks and keeps PyTorch's two refusals; there is no tracer to mark it for."""
import types

import pytest

import minigrad_ckpt as mg

TIMM_STYLE_MODULE = '''
import minigrad_ckpt as torch

@torch.fx.wrap
def maybe_add_mask(scores, attn_mask=None):
    return scores if attn_mask is None else scores + attn_mask

torch.fx.wrap("len")
'''


def test_a_module_marking_helpers_at_its_top_level_imports_and_runs():
    module = types.ModuleType("timm_style")
    exec(compile(TIMM_STYLE_MODULE, "timm_style.py", "exec"), module.__dict__)
    scores = mg.ones(2, 2)
    assert module.maybe_add_mask(scores) is scores
    assert module.maybe_add_mask(scores, mg.ones(2, 2)).tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_wrap_keeps_pytorchs_refusals():
    with pytest.raises(NotImplementedError, match="top level of a module"):
        mg.fx.wrap(len)       # called inside a function, as PyTorch refuses
    with pytest.raises(RuntimeError, match="callable or string name"):
        exec("import minigrad_ckpt as torch\ntorch.fx.wrap(3)", {})


def test_there_is_no_tracer():
    with pytest.raises(NotImplementedError, match="no graph tracer"):
        mg.fx.symbolic_trace(mg.nn.Linear(2, 2))
