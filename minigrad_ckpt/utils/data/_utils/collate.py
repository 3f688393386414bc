"""PyTorch's ``torch.utils.data._utils.collate``: the collate functions, and the two names copied collate
functions raise with, under the path programs import them by."""

from ..collate import (
                       collate,
                       collate_float_fn,
                       collate_int_fn,
                       collate_numpy_array_fn,
                       collate_numpy_scalar_fn,
                       collate_str_fn,
                       collate_tensor_fn,
                       default_collate,
                       default_collate_err_msg_format,
                       default_collate_fn_map,
                       default_convert,
                       np_str_obj_array_pattern,
)

__all__ = ["collate", "collate_float_fn", "collate_int_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_str_fn", "collate_tensor_fn", "default_collate", "default_collate_fn_map", "default_convert",
           "np_str_obj_array_pattern", "default_collate_err_msg_format"]
