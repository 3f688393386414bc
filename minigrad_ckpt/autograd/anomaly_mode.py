"""PyTorch's ``torch.autograd.anomaly_mode`` address: the engine's anomaly detection, which lives
in :mod:`minigrad_ckpt.anomaly`."""

from ..anomaly import detect_anomaly, set_detect_anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly"]
