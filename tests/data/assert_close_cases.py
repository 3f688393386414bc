"""assert_close cases: (name, actual, expected, keywords), the tensors written with T = tensor,
Z = zeros, E = eye, F64 = float64, F16 = float16, I8 = int8 of the library under test
(tests/data/make_torch_assert_close.py, tests/test_assert_close.py)."""


CASES = [
 ("close f32", "T([1., 2., 3.])", "T([1., 2.5, 3.])", {}),
 ("int", "T([1, 2, 3])", "T([1, 4, 3])", {}),
 ("shape", "T([1., 2.])", "T([1., 2., 3.])", {}),
 ("dtype", "T([1., 2.])", "T([1., 2.], dtype=F64)", {}),
 ("dtype nocheck", "T([1., 2.])", "T([1., 2.], dtype=F64)", {"check_dtype": False}),
 ("dtype nocheck far", "T([1., 2.])", "T([1., 2.00001], dtype=F64)", {"check_dtype": False}),
 ("scalar", "1.0", "1.5", {}), ("scalar int", "1", "2", {}), ("mixed", "T(1.0)", "1.0", {}),
 ("seq", "[T(1.), T(2.)]", "[T(1.), T(3.)]", {}), ("seq len", "[1.0, 2.0]", "[1.0]", {}),
 ("nested", "[{'a': [1.0, 2.0]}]", "[{'a': [1.0, 2.5]}]", {}),
 ("map", "{'a': T(1.)}", "{'a': T(2.)}", {}), ("map keys", "{'a': 1.0}", "{'b': 1.0}", {}),
 ("nan", "T([float('nan')])", "T([float('nan')])", {}),
 ("nan eq", "T([float('nan')])", "T([float('nan')])", {"equal_nan": True}),
 ("inf", "T([float('inf')])", "T([float('inf')])", {}), ("inf sign", "T([float('inf')])", "T([-float('inf')])", {}),
 ("only rtol", "T([1.])", "T([1.])", {"rtol": 1e-3}), ("msg", "T([1.])", "T([2.])", {"msg": "custom"}),
 ("bool", "T([True])", "T([False])", {}), ("numpy", "np.array([1., 2.])", "np.array([1., 2.1])", {}),
 ("numpy vs tensor", "np.array([1., 2.])", "T([1., 2.])", {}), ("complex", "T([1+1j])", "T([1+1.5j])", {}),
 ("2d", "Z(2, 3)", "E(2, 3)", {}), ("rel big", "T([0.0, 1.0])", "T([1e-9, 1.0])", {}), ("empty", "Z(0)", "Z(0)", {}),
 ("0d", "T(1.0)", "T(1.1)", {}), ("bool scalar", "True", "False", {}), ("none", "None", "None", {}),
 ("str", "'a'", "'a'", {}), ("tuple vs list", "(1.0,)", "[1.0]", {}), ("int vs float scalar", "1", "1.0", {}),
 ("given tol", "T([1., 2.])", "T([1., 2.2])", {"rtol": 0.0, "atol": 0.1}),
 ("int8 overflow", "T([-128], dtype=I8)", "T([127], dtype=I8)", {}),
 ("f64 tiny", "T([1.0], dtype=F64)", "T([1.0 + 1e-8], dtype=F64)", {}),
 ("f32 vs f64 scalar-ish", "T(1.0, dtype=F64)", "T(1.0 + 2e-7, dtype=F64)", {}),
 ("mixed nan", "T([1., float('nan'), 3.])", "T([1., 2., 4.])", {}),
 # NumPy scalars are the Python numbers they hold; None against anything else is a mismatch
 ("np float vs float", "np.float64(1.0)", "1.0", {}), ("np int vs int", "np.int64(3)", "3", {}),
 ("np int vs int far", "np.int64(3)", "4", {}), ("np bool vs bool", "np.bool_(True)", "True", {}),
 ("np f32 vs float far", "np.float32(1.0)", "1.1", {}), ("np f32 vs np f64", "np.float32(1.0)", "np.float64(1.0)", {}),
 ("np complex vs complex", "np.complex128(1+1j)", "1+1j", {}), ("np int vs float", "np.int64(1)", "1.0", {}),
 ("none vs number", "None", "1", {}), ("number vs none", "2.5", "None", {}),
 ("none in a list", "[None, 1]", "[1, 1]", {}), ("none vs list", "None", "[1]", {}),
 # a pair it cannot compare inside a container names the item; bytes are a sequence of ints
 ("str in a list", "['a']", "['a']", {}), ("str in a dict", "{'k': [1.0, 'a']}", "{'k': [1.0, 'a']}", {"msg": "m"}),
 ("bytes", "b'ab'", "b'ab'", {}), ("bytes far", "b'ab'", "b'ac'", {}),
 # a NumPy bool is no number; Python ints beyond int64 compare exactly; check_dtype=False promotes by
 # PyTorch's rules (int64 with float32 is float32, an int with float16 float16); a NumPy array's strides
 # are checked in elements; an array's subclass (np.matrix) is an array
 ("np bool vs nan", "float('nan')", "np.bool_(True)", {"check_dtype": False}),
 ("np bool vs int", "np.bool_(False)", "0", {}), ("np bool vs np float", "np.float32(0.5)", "np.bool_(True)", {}),
 ("int beyond int64", "2**70", "2**70 + 1", {}),
 ("int beyond int64 close", "2**64", "2**64 + 1", {"rtol": 1e-3, "atol": 0}),
 ("int beyond int64 vs 0", "0", "2**70", {}),
 ("int64 vs float32 rounds", "T([16777217])", "T([16777216.])", {"check_dtype": False, "rtol": 0, "atol": 0}),
 ("int vs float16 relative", "T([1, 0, 2])", "T([1, 0, 3], dtype=F16)", {"check_dtype": False}),
 ("float16 vs int8 relative", "T([1, 0, 2], dtype=F16)", "T([1, 0, 3], dtype=I8)", {"check_dtype": False}),
 ("numpy stride", "np.arange(3.).reshape(3, 1).T", "np.arange(3.).reshape(1, 3)", {"check_stride": True}),
 ("numpy stride same", "np.arange(6.).reshape(2, 3)", "np.arange(6.).reshape(2, 3).copy()", {"check_stride": True}),
 ("numpy matrix", "np.matrix([[1., 2.]])", "np.array([[1., 2.5]])", {}),
 ("numpy matrix same class only", "np.matrix([[1., 2.]])", "np.array([[1., 2.]])", {"allow_subclasses": False}),
]
