"""``model.share_memory()`` (pytorch/examples' mnist_hogwild) is a clear refusal naming what to use:
there are no shared-memory tensors here, and a user who deleted the call would train a copy in each
process while the parent's model stayed untrained, silently."""
import pytest

import minigrad_ckpt as mg


def test_share_memory_says_why_and_what_instead():
    model = mg.nn.Sequential(mg.nn.Linear(3, 2), mg.nn.ReLU())
    with pytest.raises(RuntimeError, match="no shared-memory tensors.*DistributedDataParallel"):
        model.share_memory()
    assert model(mg.ones(1, 3)).shape == (1, 2)  # (the model is untouched)
