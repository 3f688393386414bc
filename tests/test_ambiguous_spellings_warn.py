"""A call NumPy and PyTorch read differently answers NumPy's way and says so.

Every program ported from PyTorch by renaming ``torch`` met ``mg.max(x, 1)``, ``mg.sort(p)`` or
``mg.var(x)``: NumPy's answer, silently (``_, predicted = mg.max(logits, 1)`` unpacks a batch of two;
``mg.sort(p)[0]`` gave a KL divergence of 8582 where PyTorch's program printed 1.14).  The answer stays
NumPy's (``docs/from-pytorch.md``); the call warns, at the user's line, with both spellings, and either
spelling is quiet.  Tensor's methods and the engine's own calls never warn.
"""

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

A = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0], [2.0, 2.5, 7.0]])
B = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0], [2.0, 1.0, -1.0]])
N = np.array([1.0, np.nan, -2.0, 0.0, np.nan])  # two NaNs


def _t(a=A):
    return mg.tensor(a)


# (the ambiguous call, NumPy's answer to it, a spelling of NumPy's meaning, one of PyTorch's)
CASES = {
    "max": (lambda: mg.max(_t(), 1), lambda: A.max(1), lambda: mg.max(_t(), axis=1), lambda: mg.max(_t(), dim=1)),
    "min": (lambda: mg.min(_t(), 0), lambda: A.min(0), lambda: mg.min(_t(), axis=0), lambda: mg.min(_t(), dim=0)),
    "max keepdims": (lambda: mg.max(_t(), 1, keepdims=True), lambda: A.max(1, keepdims=True),
                     lambda: mg.max(_t(), axis=1, keepdims=True), lambda: mg.max(_t(), 1, keepdim=True)),
    "sort": (lambda: mg.sort(_t()), lambda: np.sort(A), lambda: mg.sort(_t(), axis=-1), lambda: mg.sort(_t(), dim=-1)),
    "sort axis": (lambda: mg.sort(_t(), 0), lambda: np.sort(A, 0), lambda: mg.sort(_t(), axis=0),
                  lambda: mg.sort(_t(), 0, descending=True)),
    "median": (lambda: mg.median(_t(A[:2])), lambda: np.median(A[:2]), lambda: mg.median(_t(A[:2]), axis=None),
               lambda: mg.median(_t(), dim=0)),
    "median ints": (lambda: mg.median(mg.tensor([3, 1, 2])), lambda: np.median([3, 1, 2]),  # 2.0, PyTorch's int 2
                    lambda: mg.median(mg.tensor([3, 1, 2]), axis=0), lambda: mg.median(mg.tensor([3, 1, 2]), dim=0)),
    "median axis": (lambda: mg.median(_t(), 1), lambda: np.median(A, 1), lambda: mg.median(_t(), axis=1),
                    lambda: mg.median(_t(), dim=1)),
    "nanmedian": (lambda: mg.nanmedian(_t(), 1), lambda: np.nanmedian(A, 1), lambda: mg.nanmedian(_t(), axis=1),
                  lambda: mg.nanmedian(_t(), dim=1)),
    "var": (lambda: mg.var(_t()), lambda: A.var(), lambda: mg.var(_t(), ddof=0), lambda: mg.var(_t(), correction=1)),
    "std": (lambda: mg.std(_t(), 1), lambda: A.std(1), lambda: mg.std(_t(), axis=1), lambda: mg.std(_t(), dim=1)),
    "split": (lambda: mg.split(_t(), 3), lambda: np.split(A, 3), lambda: mg.split(_t(), 3, axis=0),
              lambda: mg.split(_t(), 3, dim=0)),
    "nonzero": (lambda: mg.nonzero(_t(A > 1)), lambda: np.nonzero(A > 1), lambda: mg.nonzero(_t(A > 1), as_tuple=True),
                lambda: mg.nonzero(_t(A > 1), as_tuple=False)),
    "meshgrid": (lambda: mg.meshgrid(_t(A[0]), _t(B[0])), lambda: np.meshgrid(A[0], B[0]),
                 lambda: mg.meshgrid(_t(A[0]), _t(B[0]), indexing="xy"),
                 lambda: mg.meshgrid(_t(A[0]), _t(B[0]), indexing="ij")),
    "equal": (lambda: mg.equal(_t(), _t()), lambda: np.equal(A, A), lambda: mg.eq(_t(), _t()),
              lambda: _t().equal(_t())),
    "cross": (lambda: mg.cross(_t(), _t(B)), lambda: np.cross(A, B), lambda: mg.cross(_t(), _t(B), axis=-1),
              lambda: mg.cross(_t(), _t(B), dim=0)),
    "cross axisa": (lambda: mg.cross(_t(), _t(B), 0), lambda: np.cross(A, B, 0),
                    lambda: mg.cross(_t(), _t(B), axisa=0), lambda: mg.cross(_t(), _t(B), dim=0)),
    "var dims": (lambda: mg.var(_t(), (0, 1)), lambda: A.var((0, 1)), lambda: mg.var(_t(), axis=(0, 1)),
                 lambda: mg.var(_t(), dim=(0, 1))),
    "std dims": (lambda: mg.std(_t(), [1]), lambda: A.std((1,)), lambda: mg.std(_t(), axis=(1,)),
                 lambda: mg.std(_t(), dim=[1])),
    "var none": (lambda: mg.var(_t(), None), lambda: A.var(None), lambda: mg.var(_t(), axis=None),
                 lambda: mg.var(_t(), dim=None)),  # torch.var(x, None): correction=1
    "std none": (lambda: mg.std(_t(), None, keepdims=True), lambda: A.std(None, keepdims=True),
                 lambda: mg.std(_t(), None, ddof=0, keepdims=True), lambda: mg.std(_t(), None, keepdim=True)),
    "gradient": (lambda: mg.gradient(_t(A[0])), lambda: np.gradient(A[0]), lambda: mg.gradient(_t(A[0]), axis=0),
                 lambda: mg.gradient(_t(A[0]), spacing=1)),
    "histogram": (lambda: mg.histogram(_t()), lambda: np.histogram(A), lambda: mg.histogram(_t(), bins=10),
                  lambda: mg.histogram(_t(), 100)),
    "unique": (lambda: mg.unique(_t(N)), lambda: np.unique(N), lambda: mg.unique(_t(N), equal_nan=True),
               lambda: mg.unique(_t(N), sorted=True)),
    "unique return_index": (lambda: mg.unique(_t(), True), lambda: np.unique(A, True),
                            lambda: mg.unique(_t(), return_index=True), lambda: mg.unique(_t(), sorted=True)),
}


def _values(r):
    if isinstance(r, (tuple, list)):
        return [_values(v) for v in r]
    return r.numpy() if isinstance(r, mg.Tensor) else np.asarray(r)


def _ambiguous_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in caught if w.category is mg.AmbiguousSpellingWarning]


@pytest.mark.parametrize("name", CASES)
def test_the_ambiguous_call_answers_numpys_way_and_warns_at_the_callers_line(name):
    ambiguous, numpys, _, _ = CASES[name]
    result, caught = _ambiguous_warnings(ambiguous)
    expected = numpys()
    got = _values(result)
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g, e)
    else:
        np.testing.assert_array_equal(got, expected)
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert caught[0].filename == __file__  # the user's line, past the engine's wrappers
    message = str(caught[0].message)
    fn = name.split()[0]
    assert f"mg.{fn} reads this call as NumPy does" in message and f"torch.{fn} would answer" in message


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("which", ["numpy", "torch"])
def test_either_libraries_spelling_is_quiet(name, which):
    _, _, numpy_spelling, torch_spelling = CASES[name]
    _, caught = _ambiguous_warnings(numpy_spelling if which == "numpy" else torch_spelling)
    assert caught == []


def test_the_numpy_spelling_answers_as_the_ambiguous_call():
    for name, (ambiguous, _, numpy_spelling, _) in CASES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mg.AmbiguousSpellingWarning)
            a, b = _values(ambiguous()), _values(numpy_spelling())
        if isinstance(a, list):
            for u, v in zip(a, b):
                np.testing.assert_array_equal(u, v, err_msg=name)
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)


def test_unambiguous_calls_are_quiet():
    x = _t()
    quiet = [
        lambda: mg.max(x), lambda: mg.max(x, x), lambda: mg.max(x, 1, None), lambda: mg.max(x, 1, True),
        lambda: mg.sort(x, 1, True), lambda: mg.var(x, True), lambda: mg.std(x, 1, True),
        lambda: mg.meshgrid(x[0]), lambda: mg.cross(mg.ones(2, 3), mg.ones(2, 3)),  # size 3 last only
        lambda: mg.split(x, split_size_or_sections=1), lambda: mg.median(x, dim=1, keepdim=True),
        lambda: mg.max(x, 1, out=(mg.empty(0, dtype=mg.float64), mg.empty(0, dtype=mg.int64))),
        lambda: mg.cross(x, x, -1), lambda: mg.cross(x, x, 1), lambda: mg.cross(x, x, 0, axisb=0),
        lambda: mg.var(x, (0, 1), ddof=0), lambda: mg.std(x, [1], correction=1),
        # an odd count of floats: NumPy's mean of the two middle values and PyTorch's lower one are its middle one
        lambda: mg.median(x), lambda: mg.median(x[0]),
        lambda: mg.gradient(x), lambda: mg.gradient(x[0], 2.0),  # 2-D: a list, a tuple (same values); a spacing
        lambda: mg.histogram(x, 10), lambda: mg.histogram(x, weights=x), lambda: mg.histogram(x, weight=x),
        lambda: mg.unique(x), lambda: mg.unique(x, False), lambda: mg.unique(_t(N[:3])),  # one NaN: one value
        # NaN, where NumPy's sign and heaviside answer NaN and PyTorch's 0: not scanned for (a pass over
        # every input, on a GPU a copy to the host, on each call); the table of docs/from-pytorch.md says it
        lambda: mg.sign(_t(N)), lambda: mg.heaviside(_t(N), _t(np.array(0.5))),
    ]
    for call in quiet:
        assert _ambiguous_warnings(call)[1] == []


def test_once_per_line_as_python_shows_a_warning():
    x = _t()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            mg.max(x, 1)
    assert sum(w.category is mg.AmbiguousSpellingWarning for w in caught) == 1


def test_tensor_methods_and_the_engines_own_calls_never_warn():
    """A training step through layers whose code sorts, splits, takes maxima and variances (batch norm,
    attention, GLU, max pooling, cross-entropy; losses and an optimizer step on NaNs), under checkpointing
    and a transform: the engine calls its own functions, never the public ambiguous ones."""
    mg.manual_seed(0)
    x = mg.randn(4, 3, 8, 8)
    conv = mg.nn.Sequential(mg.nn.Conv2d(3, 6, 3, padding=1), mg.nn.BatchNorm2d(6), mg.nn.ReLU(),
                            mg.nn.MaxPool2d(2), mg.nn.Flatten())
    attn = mg.nn.MultiheadAttention(6, 2, batch_first=True)
    head = mg.nn.Linear(96, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mg.AmbiguousSpellingWarning)
        h = mg.checkpoint.checkpoint(conv, x, use_reentrant=False)
        seq = h.view(4, 16, 6)
        a, _ = attn(seq, seq, seq)
        z = mg.nn.functional.glu(mg.cat([a, a], dim=-1), dim=-1).reshape(4, 96)
        loss = mg.nn.functional.cross_entropy(head(z), mg.tensor([1, 2, 3, 4]))
        loss.backward()
        v, i = x.max(1)
        s, j = x.sort(0)
        x.var(), x.std(1), x.median(), x.nonzero(), x.split(2), x.equal(x)
        mg.func.vmap(lambda r: r.max(0).values)(x.reshape(4, -1))
        mg.func.grad(lambda r: r.sort(0).values.sum())(x.reshape(-1))
        # NaN, which mg.sign, mg.heaviside and mg.unique read differently: losses, an optimizer, the methods
        n = mg.tensor(N, requires_grad=True)
        F = mg.nn.functional
        (F.l1_loss(n, mg.zeros_like(n)) + F.smooth_l1_loss(n, mg.zeros_like(n))).backward()
        p = mg.nn.Parameter(mg.tensor(np.ones(5)))
        p.grad = mg.tensor(N)
        mg.optim.Rprop([p]).step()
        n.sign(), n.sgn(), n.heaviside(_t(np.array(0.5))), n.unique(), n[:1].histogram(3)


def test_under_vmap_the_warning_names_the_line_in_the_users_function():
    x = mg.tensor(A)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = mg.func.vmap(lambda r: mg.sort(r))(x)
    np.testing.assert_array_equal(out.numpy(), np.sort(A, -1))
    hits = [w for w in caught if w.category is mg.AmbiguousSpellingWarning]
    assert hits and all(w.filename == __file__ for w in hits)


def test_an_error_filter_finds_the_line():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # (-W error::UserWarning finds every ambiguous line)
        with pytest.raises(mg.AmbiguousSpellingWarning, match=r"mg\.var\(x, ddof=0\)"):
            mg.var(mg.tensor(A))


@pytest.mark.parametrize("call", [
    lambda: mg.cross(mg.ones(3, 3), mg.ones(3, 3), dim=None), lambda: mg.ones(3, 3).cross(mg.ones(3, 3)),
    lambda: mg.meshgrid([mg.ones(2), mg.ones(3)]), lambda: mg.var(mg.ones(1), dim=0),
    lambda: mg.ones(1).std(0), lambda: mg.cov(mg.ones(1, 1)),
], ids=["cross dim=None", "cross method", "meshgrid list", "var dim", "std method", "cov"])
def test_the_functions_own_warnings_still_point_at_the_callers_line(call):
    """PyTorch's own warnings of these calls (cross's default dim, meshgrid's indexing, no degrees of
    freedom) took a fixed stacklevel, which the wrapper that warns of two meanings moved into the engine
    (mg.cross(a, b, dim=None)'s pointed at two_meanings.py); they count the engine's frames now."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught and [w.filename for w in caught] == [__file__] * len(caught), [(w.filename, str(w.message)[:40])
                                                                                  for w in caught]


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices_the_same_calls_warn_and_answer_alike(device):
    """The predicates read argument kinds and shapes only (nothing copied to the host): on the strict
    stand-in devices the ambiguous calls warn and answer as on the CPU, and the spellings stay quiet."""
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor(A, dtype=mg.float32, device=device)
    for ambiguous, numpys in [(lambda: mg.max(x, 1), lambda: A.astype(np.float32).max(1)),
                              (lambda: mg.sort(x), lambda: np.sort(A.astype(np.float32))),
                              (lambda: mg.var(x), lambda: A.astype(np.float32).var())]:
        result, caught = _ambiguous_warnings(ambiguous)
        assert len(caught) == 1 and result.device == x.device
        np.testing.assert_allclose(result.cpu().numpy(), numpys(), rtol=1e-6)
    for quiet in (lambda: mg.max(x, dim=1), lambda: mg.sort(x, axis=-1), lambda: mg.var(x, ddof=0)):
        assert _ambiguous_warnings(quiet)[1] == []


def test_a_pytorch_keyword_at_its_default_value_still_picks_pytorchs_answer():
    """``descending=`` and ``stable=`` are PyTorch's keywords (NumPy's ``sort`` has neither), so writing
    one says PyTorch's meaning whatever its value.  ``torch.sort(dist, 1, descending=False)[1]`` (the
    indices, in a quantile-regression DQN) read as NumPy's sort gave the second row of sorted values,
    silently, without a warning: the keyword's value, not its presence, chose the meaning."""
    x = _t()
    for call in (lambda: mg.sort(x, 1, descending=False), lambda: mg.sort(x, descending=False),
                 lambda: mg.sort(x, dim=1, stable=False), lambda: mg.sort(x, stable=True)):
        answer, caught = _ambiguous_warnings(call)
        assert caught == []
        values, indices = answer
        np.testing.assert_array_equal(values.numpy(), np.sort(A, -1))
        np.testing.assert_array_equal(indices.numpy(), np.argsort(A, -1, kind="stable"))
