"""What a call into torch gave, as the generator scripts record it: the builtin type of the exception
it raised and the first line of its message, or whatever ``record`` makes of its result.  No torch
import here: the caller passes the call."""

import builtins
import warnings


def outcome(call, record) -> dict:
    """``call()``'s result through ``record``, or ``{"raises": kind, "message": first line}``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call()
    except Exception as e:  # noqa: BLE001 -- recording whatever torch raises is the point
        kind = next(c.__name__ for c in type(e).__mro__ if getattr(builtins, c.__name__, None) is c)
        return {"raises": kind, "message": str(e).splitlines()[0]}
    return record(out)
