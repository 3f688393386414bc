"""Property-based tests: the op battery, the stateful graph test and the strategies' own tests."""
