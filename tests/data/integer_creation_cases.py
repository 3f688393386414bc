"""Python numbers made into a tensor of an integer dtype: the cases of
``make_torch_integer_creation.py`` (torch's answers) and ``tests/test_integer_creation_range.py``.

Each case is ``(data, dtype name)``; the data is Python numbers only (NumPy data is never checked)."""

CASES = [
    ([300], "uint8"), ([255], "uint8"), ([256], "uint8"), ([-1], "uint8"), ([-128], "uint8"), ([-200], "uint8"),
    ([-255], "uint8"), ([-256], "uint8"), ([127], "int8"), ([128], "int8"), ([-128], "int8"), ([-129], "int8"),
    ([3000000000], "int32"), ([2147483647], "int32"), ([-2147483648], "int32"), ([-2147483649], "int32"),
    ([32768], "int16"), ([-1], "uint16"), ([65535], "uint16"), ([65536], "uint16"), ([-1], "uint32"),
    ([4294967296], "uint32"), ([18446744073709551615], "uint64"), ([-1], "uint64"),
    ([9223372036854775807], "int64"), ([-9223372036854775808], "int64"),
    ([300.0], "uint8"), ([255.9], "uint8"), ([-1.0], "uint8"), ([1.5], "int8"), ([-1.5], "int8"), ([127.9], "int8"),
    ([1e10], "int32"), ([float("nan")], "int32"), ([float("inf")], "int64"), ([float("-inf")], "int16"),
    ([9.2e18], "int64"), ([9.3e18], "int64"), ([True, 300], "uint8"), ([[1, 2], [3, 400]], "int8"),
    ([[1, 2], [3, 4]], "int8"), (300, "uint8"), (-5, "int8"), (2.5, "int32"),
]
