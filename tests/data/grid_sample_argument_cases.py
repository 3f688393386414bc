"""The calls of ``tests/test_grid_sample_arguments.py``: ``F.grid_sample`` and ``F.affine_grid``
with bad or borderline arguments, written once for both engines (``lib`` is ``torch`` or
``minigrad_ckpt``, ``F`` its ``nn.functional``); ``make_torch_grid_sample_arguments.py`` records
what torch 2.13 raises or warns for each."""

from __future__ import annotations


def cases(lib, F):
    ones, zeros, eye = lib.ones, lib.zeros, lib.eye
    return {
        "input_3d": lambda: F.grid_sample(ones(1, 4, 4), zeros(1, 2, 2), align_corners=False),
        "batch": lambda: F.grid_sample(ones(2, 1, 4, 4), zeros(1, 2, 2, 2), align_corners=False),
        "grid_last": lambda: F.grid_sample(ones(1, 1, 4, 4), zeros(1, 2, 2, 3), align_corners=False),
        "grid_ndim": lambda: F.grid_sample(ones(1, 1, 4, 4), zeros(1, 2, 2, 2, 2), align_corners=False),
        "bicubic_5d": lambda: F.grid_sample(ones(1, 1, 2, 4, 4), zeros(1, 2, 2, 2, 3), mode="bicubic",
                                            align_corners=False),
        "mode": lambda: F.grid_sample(ones(1, 1, 4, 4), zeros(1, 2, 2, 2), mode="cubic", align_corners=False),
        "padding_mode": lambda: F.grid_sample(ones(1, 1, 4, 4), zeros(1, 2, 2, 2), padding_mode="wrap",
                                              align_corners=False),
        "dtypes_differ": lambda: F.grid_sample(ones(1, 1, 4, 4), zeros(1, 2, 2, 2, dtype=lib.float64),
                                               align_corners=False),
        "integers_2d": lambda: F.grid_sample(ones(1, 1, 4, 4, dtype=lib.int64), zeros(1, 2, 2, 2, dtype=lib.int64),
                                             align_corners=False),
        "integers_3d": lambda: F.grid_sample(ones(1, 1, 2, 2, 2, dtype=lib.int64),
                                             zeros(1, 1, 1, 1, 3, dtype=lib.int64), align_corners=False),
        "integer_input_float_grid_2d": lambda: F.grid_sample(ones(1, 1, 4, 4, dtype=lib.int64), zeros(1, 2, 2, 2),
                                                             align_corners=False),
        "integer_input_float_grid_3d": lambda: F.grid_sample(ones(1, 1, 2, 2, 2, dtype=lib.int64),
                                                             zeros(1, 1, 1, 1, 3), align_corners=False),
        "float_input_integer_grid": lambda: F.grid_sample(ones(1, 1, 4, 4), zeros(1, 2, 2, 2, dtype=lib.int64),
                                                          align_corners=False),
        "empty_input": lambda: F.grid_sample(ones(1, 1, 0, 4), zeros(1, 2, 2, 2), align_corners=False),
        "default_align_corners": lambda: F.grid_sample(ones(1, 1, 4, 4), zeros(1, 2, 2, 2)),
        "affine_default_align_corners": lambda: F.affine_grid(eye(2, 3)[None], (1, 1, 3, 3)),
        "affine_integer_theta": lambda: F.affine_grid(lib.tensor([[[1, 0, 0], [0, 1, 0]]]), (1, 1, 3, 3),
                                                      align_corners=False),
        "affine_size_3": lambda: F.affine_grid(eye(2, 3)[None], (1, 1, 3), align_corners=False),
        "affine_theta_shape": lambda: F.affine_grid(eye(3, 3)[None], (1, 1, 3, 3), align_corners=False),
        "affine_batch": lambda: F.affine_grid(eye(2, 3)[None].expand(2, 2, 3), (1, 1, 3, 3), align_corners=False),
        "affine_unit_size": lambda: F.affine_grid(eye(2, 3)[None], (1, 1, 1, 3), align_corners=True),
        "affine_zero_size": lambda: F.affine_grid(eye(2, 3)[None], (1, 1, 0, 3), align_corners=False),
        "affine_zero_batch": lambda: F.affine_grid(eye(2, 3)[None][:0], (0, 1, 2, 3), align_corners=False),
    }
