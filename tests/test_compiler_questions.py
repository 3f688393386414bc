"""``mg.compiler`` answers what model code asks ``torch.compiler``: litgpt's sampler branches on
``is_compiling()`` (False here: the eager ``multinomial`` branch runs), and ``disable`` /
``allow_in_graph`` mark functions and give them back unchanged."""
import minigrad_ckpt as mg


def test_nothing_is_being_compiled_or_exported():
    assert mg.compiler.is_compiling() is False
    assert mg.compiler.is_dynamo_compiling() is False
    assert mg.compiler.is_exporting() is False


def test_markers_give_back_what_they_mark():
    def f(x):
        return x + 1

    assert mg.compiler.disable(f) is f
    assert mg.compiler.disable(recursive=False)(f) is f
    assert mg.compiler.disable(f, reason="host sync") is f
    assert mg.compiler.allow_in_graph(f) is f
    assert mg.compiler.reset() is None


def test_the_eager_branch_of_a_sampler_runs():
    probs = mg.tensor([0.0, 1.0, 0.0])
    token = (mg.argmax(probs, -1, keepdim=True) if mg.compiler.is_compiling()
             else mg.multinomial(probs, num_samples=1))
    assert token.tolist() == [1]
