"""PyTorch's ``torch.utils.data._utils`` path, which programs import from although it is private:
``from torch.utils.data._utils.collate import default_collate`` (and its ``collate_fn_map`` way of extending
it), ``from torch.utils.data._utils.worker import get_worker_info``.  The code lives in ``..collate`` and
``..workers``; these modules only name it where PyTorch's do."""

from . import collate, worker

__all__ = ["collate", "worker"]
