"""The print-option cases that ``make_torch_print_options.py`` asks torch 2.13 and
``tests/test_print_options.py`` asks the engine: (options for ``set_printoptions``, the tensor's
values as nested lists, its dtype).  Each case starts from ``set_printoptions(profile="default")``."""

CASES = [
    ({"precision": 2}, [1.12345, -2.5, 3.0], "float32"),
    ({"precision": 6}, [0.1234567891, 2.0], "float64"),
    ({"threshold": 5}, list(range(10)), "int64"),
    ({"threshold": 5, "edgeitems": 1}, list(range(10)), "int64"),
    ({"threshold": 10, "edgeitems": 2}, [[float(i * 6 + j) for j in range(6)] for i in range(6)], "float32"),
    ({"profile": "short"}, [float(i) + 0.125 for i in range(1200)], "float64"),
    ({"profile": "full"}, list(range(1500)), "int64"),
    ({"profile": "short", "precision": 3}, [1.23456, 2.5], "float64"),
    ({"sci_mode": True, "precision": 3}, [1.5, 250.0, -0.001], "float64"),
    ({"sci_mode": False, "precision": 4}, [1e-7, 12345.0], "float64"),
    ({"sci_mode": True, "precision": 2}, [1.5 - 2j, 0.25 + 3j], "complex64"),
    ({"linewidth": 30}, list(range(20)), "int64"),
    ({"linewidth": 200}, list(range(40)), "int64"),
    ({"profile": "nonsense", "precision": 3}, [3.14159], "float64"),
]
