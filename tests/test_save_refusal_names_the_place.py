"""mg.save's refusal of an object it cannot store says where in the saved tree the object sits and,
for a dataclass, how to store it.  build-nanogpt's train_gpt2.py checkpoints
``{'model': raw_model.state_dict(), 'config': raw_model.config, 'step': step, ...}`` with the
``GPTConfig`` dataclass as it is (torch.save pickles it); the engine, which never pickles, said only
"cannot store a GPTConfig" -- not which of the checkpoint's entries, nor the way across."""

import dataclasses
import io

import pytest

import minigrad_ckpt as mg


@dataclasses.dataclass
class GPTConfig:
    block_size: int = 16
    n_layer: int = 2


def test_a_dataclass_is_refused_with_its_place_and_asdict():
    checkpoint = {"model": {"w": mg.zeros(2)}, "config": GPTConfig(), "step": 4}
    with pytest.raises(TypeError) as err:
        mg.save(checkpoint, io.BytesIO())
    message = str(err.value)
    assert "cannot store a GPTConfig at ['config']" in message
    assert "dataclasses.asdict(obj)" in message
    checkpoint["config"] = dataclasses.asdict(checkpoint["config"])  # the way across it names
    buf = io.BytesIO()
    mg.save(checkpoint, buf)
    buf.seek(0)
    assert GPTConfig(**mg.load(buf)["config"]) == GPTConfig()


def test_the_place_of_an_object_deep_in_lists_and_dicts():
    with pytest.raises(TypeError, match=r"cannot store a object at \['runs'\]\[1\]\['extra'\]: "):
        mg.save({"runs": [{}, {"extra": object()}]}, io.BytesIO())


def test_a_top_level_object_has_no_place_to_name():
    with pytest.raises(TypeError, match=r"cannot store a GPTConfig: it stores"):
        mg.save(GPTConfig(), io.BytesIO())
