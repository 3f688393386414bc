"""Calls that hand an index op an index out of range (and a few in range at the edges), written
once as expressions of ``L`` (``torch`` or ``minigrad_ckpt``), ``F`` (its ``nn.functional``),
``x`` (a float (3, 4) tensor), ``T`` (an int64 tensor on ``x``'s device) and ``setitem`` (``y = x * 1;
y[i] = v``): make_torch_index_bounds.py records what torch raises for each (type and message) or
the shape it returns; tests/test_index_bounds_on_devices.py checks the engine on every device.

The point is the devices that wrap such indices silently (CuPy, and the strict stand-in device
that behaves as CuPy does): the engine checks there, NumPy refuses them itself on the CPU.
"""

CASES = {
    # x[i] and x[i] = v: PyTorch names an index tensor's dim by its place among the index tensors
    "getitem": "x[T([5])]",
    "getitem_negative": "x[T([-4])]",
    "getitem_int": "x[5]",
    "getitem_second_dim": "x[:, T([4])]",
    "getitem_0d_tensor": "x[T(5)]",
    "getitem_0d_tensor_second_dim": "x[:, T(9)]",
    "getitem_two_tensors": "x[T([0]), T([4])]",
    "getitem_2d_tensor": "x[T([[1], [7]])]",
    "getitem_first_bad_in_order": "x[T([2, -9, 9])]",
    "getitem_first_bad_in_order_high": "x[T([9, -9])]",
    "getitem_after_ellipsis": "x[..., T([7])]",
    "getitem_after_mask": "x[T([True, False, True]), T([9])]",
    "getitem_after_none": "x[None, :, T([4])]",
    "getitem_empty_broadcast": "x[T([], dtype=L.int64), T([9])]",
    "getitem_in_range_negative": "x[T([-3, 2]), T([-1])]",
    "setitem": "setitem(x, T([5]), 1.0)",
    "setitem_second_dim": "setitem(x, (slice(None), T([4])), 1.0)",
    "setitem_0d_tensor": "setitem(x, T(5), 1.0)",
    "setitem_tensor_value": "setitem(x, T([0, 3]), x[1])",
    "index_put": "L.index_put(x, (T([5]),), x[0, 0])",
    "index_put_accumulate": "L.index_put(x, (T([0]), T([4])), x[0, 0], accumulate=True)",
    "getitem_list": "x[[5]]",
    "getitem_lists": "x[[0], [4]]",
    "setitem_list": "setitem(x, [5], 1.0)",
    # the gather/scatter family
    "gather": "L.gather(x, 1, T([[0, 4]] * 3))",
    "gather_negative": "L.gather(x, 1, T([[0, -1]] * 3))",
    "gather_first_dim": "L.gather(x, 0, T([[3, 0, 0, 0]]))",
    "scatter": "L.scatter(x, 1, T([[4]]), x[:1, :1])",
    "scatter_value": "x.scatter(1, T([[4]]), 2.0)",
    "scatter_negative": "L.scatter(x, 1, T([[-1]]), x[:1, :1])",
    "scatter_add": "L.scatter_add(x, 1, T([[4]]), x[:1, :1])",
    "scatter_reduce": "L.scatter_reduce(x, 1, T([[4]]), x[:1, :1], 'sum')",
    "index_select": "L.index_select(x, 0, T([3]))",
    "index_select_negative": "L.index_select(x, 0, T([-1]))",
    "index_add": "L.index_add(x, 0, T([3]), x[:1])",
    "index_add_negative": "L.index_add(x, 0, T([-1]), x[:1])",
    "index_copy": "L.index_copy(x, 0, T([3]), x[:1])",
    "index_copy_negative": "L.index_copy(x, 0, T([-1]), x[:1])",
    "index_fill": "L.index_fill(x, 0, T([3]), 2.0)",
    "index_fill_negative": "L.index_fill(x, 0, T([-4]), 2.0)",
    "index_fill_negative_in_range": "L.index_fill(x, 0, T([-1]), 2.0)",
    "take": "L.take(x, T([12]))",
    "take_negative": "L.take(x, T([-13]))",
    "take_negative_in_range": "L.take(x, T([-12]))",
    "take_along_dim_flat": "L.take_along_dim(x, T([[12]]))",
    "take_along_dim_flat_negative": "L.take_along_dim(x, T([3, -1]))",
    "take_along_dim_flat_in_range": "L.take_along_dim(x, T([[11, 0]]))",
    "put": "L.put(x, T([12]), x[0, :1])",
    "put_accumulate_negative": "L.put(x, T([-13]), x[0, :1], accumulate=True)",
    # lookups by class
    "embedding": "F.embedding(T([5]), x)",
    "embedding_negative": "F.embedding(T([[0, -1]]), x)",
    "embedding_bag": "F.embedding_bag(T([5]), x, T([0]))",
    "embedding_bag_offset_past_the_end": "F.embedding_bag(T([0, 1]), x, T([0, 5]))",
    "one_hot": "F.one_hot(T([5]), 3)",
    "one_hot_negative": "F.one_hot(T([-1]), 3)",
    "one_hot_negative_inferred": "F.one_hot(T([-1]))",
    "bincount_negative": "L.bincount(T([-1]))",
    # unpooling at max_pool's indices
    "max_unpool1d": "F.max_unpool1d(x[None, :1, :2], T([[[0, 9]]]), 2)",
    "max_unpool1d_negative": "F.max_unpool1d(x[None, :1, :2], T([[[0, -1]]]), 2)",
    "max_unpool2d": "F.max_unpool2d(x[None, None, :1, :2], T([[[[0, 9]]]]), 2)",
    "max_unpool2d_second_plane": "F.max_unpool2d(x[:2, :2].reshape(1, 2, 1, 2), T([[[[0, 1]], [[3, 9]]]]), 2)",
    # class-index losses
    "cross_entropy": "F.cross_entropy(x, T([0, 4, 1]))",
    "cross_entropy_negative": "F.cross_entropy(x, T([0, -1, 1]))",
    "cross_entropy_ignored": "F.cross_entropy(x, T([0, -100, 1]))",
    "cross_entropy_ignore_index_out_of_range": "F.cross_entropy(x, T([0, 7, 1]), ignore_index=7)",
    "cross_entropy_smoothed": "F.cross_entropy(x, T([0, 4, 1]), label_smoothing=0.1)",
    "cross_entropy_weighted": "F.cross_entropy(x, T([0, 4, 1]), weight=x[0] * 0 + 1)",
    "cross_entropy_none": "F.cross_entropy(x, T([0, 4, 1]), reduction='none')",
    "cross_entropy_one_sample": "F.cross_entropy(x[0], T(4))",
    "nll_loss": "F.nll_loss(x, T([0, 4, 1]))",
    "nll_loss_negative": "F.nll_loss(x, T([0, -2, 1]))",
    "nll_loss_spatial": "F.nll_loss(x[None], T([[0, 2, 3, 1]]))",
    "multi_margin_loss": "F.multi_margin_loss(x, T([0, 4, 1]))",
    "multilabel_margin_loss": "F.multilabel_margin_loss(x, T([[0, 4, -1, 0]] * 3))",
}


def make_x(lib, device: str = "cpu", dtype_name: str = "float64", requires_grad: bool = False):
    """The tables' ``x``: a float (3, 4) tensor of distinct values."""
    return lib.tensor([[0.5 * i - j for j in range(4)] for i in range(3)], dtype=getattr(lib, dtype_name),
                      device=device, requires_grad=requires_grad)


def run(lib, expression: str, device: str = "cpu", dtype_name: str = "float64", x=None):
    """Evaluate one case with ``lib`` (``torch`` or ``minigrad_ckpt``) on ``x`` (default: :func:`make_x`)."""
    x = make_x(lib, device, dtype_name) if x is None else x

    def T(v, **kw):  # noqa: N802 -- the tables' short name
        return lib.tensor(v, device=device, **kw)

    def setitem(x, i, v):
        y = x * 1
        y[i] = v
        return y

    return eval(expression, {"L": lib, "F": lib.nn.functional, "x": x, "T": T, "setitem": setitem})  # noqa: S307
