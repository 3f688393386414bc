"""The float16 norm calls of ``make_torch_float16_norms.py`` and ``tests/test_float16_norms.py``, written once
for either library: each is a function of ``(F, x, w, b)``, ``F`` being ``torch.nn.functional`` or
``minigrad_ckpt.nn.functional``, ``x`` of shape (4, 6, 50), ``w`` and ``b`` of shape (6,).
"""

from __future__ import annotations

CALLS = {
    "layer_norm": lambda F, x, w, b: F.layer_norm(x, (50,)),
    "layer_norm_affine": lambda F, x, w, b: F.layer_norm(x.transpose(1, 2), (6,), w, b).transpose(1, 2),
    "batch_norm": lambda F, x, w, b: F.batch_norm(x, None, None, training=True),
    "batch_norm_affine": lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
    "group_norm": lambda F, x, w, b: F.group_norm(x, 2),
    "group_norm_affine": lambda F, x, w, b: F.group_norm(x, 3, w, b),
    "instance_norm": lambda F, x, w, b: F.instance_norm(x),
}
