"""PyTorch's ``torch.nn.utils.convert_parameters`` address: parameters as one vector and back,
the functions of :mod:`minigrad_ckpt.nn.utils`."""

from . import parameters_to_vector, vector_to_parameters

__all__ = ["parameters_to_vector", "vector_to_parameters"]
