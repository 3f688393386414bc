"""PyTorch's ``torch.utils.data._utils.worker``: ``get_worker_info`` and ``WorkerInfo`` under that path."""

from ..workers import WorkerInfo, get_worker_info

__all__ = ["WorkerInfo", "get_worker_info"]
