"""Functions that use `assert`, kept out of the test modules: pytest rewrites
the `assert` statements of test modules (adding its own message), so an eager
run there would not be plain Python. Used by test_exceptions.py."""


def checked(x, n):
    assert n > 0, "n must be positive"
    assert x.ndim == 1, f"bad rank {x.ndim}"
    return x * n


def assert_traced(x):
    assert x.sum() > -100, "diverged"
    return x + 1
