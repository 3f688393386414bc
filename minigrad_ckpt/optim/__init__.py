"""Optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adafactor, Adamax, NAdam, RAdam, ASGD, Rprop, LBFGS,
Muon) and learning-rate schedules (``optim.lr_scheduler``), with PyTorch's update rules, defaults and state dicts."""

from . import adamw, lr_scheduler, swa_utils  # noqa: F401  (adamw: PyTorch's address of AdamW)
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adafactor", "Adamax", "LBFGS", "NAdam",
    "RAdam", "ASGD", "Rprop", "Muon", "lr_scheduler", "swa_utils",
]
