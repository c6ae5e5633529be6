"""JSON as the game's own files are read (play records, pool files, pool parameters, counts).

The standard reader keeps the last of a name given twice in one object, so two readers of a
file could disagree about what it says; here that is refused. Its other refusals (a number with
thousands of digits, nesting thousands deep, bytes that are not UTF-8) are worded for
programmers; here each is said in a few plain words. Messages read after the file's name:
"the pool file is not valid JSON: ...".
"""

from __future__ import annotations

import json
from typing import Any


class StrictJsonError(ValueError):
    """The text is not JSON a game file may hold; ``str()`` says why, as a predicate."""


def refuse_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' ``object_pairs_hook``: the object, or :class:`StrictJsonError` naming a
    name it gives twice (the server reads request bodies with it too)."""
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise StrictJsonError(f"gives the name {name!r} twice in one object")
        found[name] = value
    return found


def parse(text: str | bytes) -> Any:
    """The JSON value of ``text``; :class:`StrictJsonError` when it is not JSON, repeats a name
    in an object, or cannot be read."""
    try:
        return json.loads(text, object_pairs_hook=refuse_repeats)
    except StrictJsonError:
        raise
    except UnicodeDecodeError:
        raise StrictJsonError("is not valid JSON: it is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise StrictJsonError(f"is not valid JSON: {error}") from None
    except ValueError:  # Python's limit on the digits of an integer it converts
        raise StrictJsonError("cannot be read: it holds a number with too many digits") from None
    except RecursionError:
        raise StrictJsonError("cannot be read: it is nested too deeply") from None
