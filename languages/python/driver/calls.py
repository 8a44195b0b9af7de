"""Did-you-mean after a call got a keyword argument it does not take (a TypeError): the
parameters of the function on the failing line like the keyword, the names beside the
function that hold its name (a library that dropped a keyword often moved what it did to a
function of a longer name), and its parameters. The function is found by reading the failing
line's call, and its name through the names the frame sees; nothing on the line is called
again.

Runs inside the user's python3 (compatible with Python 3.8); never imports pandas itself.
"""

import sys

from .hints import failing_frame_names, holding_words
from .state import clipped, failing_frame

UNEXPECTED = "got an unexpected keyword argument '(\\w+)'"
MAX_PARAMETERS = 12  # parameters named in one note
MAX_SIBLINGS = 3  # names beside the function named in one note


def keyword_note(namespace, exc):
    """The note for a failed block, or None: what the called function takes instead of the
    keyword it was given."""
    import re
    if not isinstance(exc, TypeError):
        return None
    found = re.search(UNEXPECTED, str(exc))
    if found is None:
        return None
    try:
        called = called_with(exc, namespace, found.group(1))
        if called is None:
            return None
        return clipped(takes_note(called[0], called[1], found.group(1)))
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None


def called_with(exc, namespace, keyword):
    """(name as written, the function) of the call on the failing lines that passes
    `keyword`, or None when there is none or its function cannot be named without calling."""
    import ast
    import linecache
    frame, number = failing_frame(exc)
    if frame is None:
        return None
    tree = ast.parse("".join(linecache.getlines(frame.f_code.co_filename)))
    seen = failing_frame_names(exc, namespace)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and node.lineno <= number <= (node.end_lineno or number)
                and any(k.arg == keyword for k in node.keywords)):
            function = looked_up(node.func, seen)
            if function is not None:
                return ast.unparse(node.func) if hasattr(ast, "unparse") else "", function
    return None


def looked_up(node, seen):
    """The object a callee names through names, attributes and constant subscripts
    (`metrics.mean_squared_error`, `df['x'].skew`), or None."""
    import ast
    if isinstance(node, ast.Name):
        return seen.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = looked_up(node.value, seen)
        return None if owner is None else getattr(owner, node.attr, None)
    key = node.slice if isinstance(node, ast.Subscript) else None
    key = getattr(key, "value", None) if type(key).__name__ == "Index" else key  # Python 3.8
    if isinstance(key, ast.Constant):
        owner = looked_up(node.value, seen)
        return None if owner is None else owner[key.value]
    return None


def takes_note(written, function, keyword):
    """"f takes no keyword 'k'; the closest: ...; names like it: ...; its parameters: ...":
    the likeliest fixes first, as a long note is cut at its end."""
    import difflib
    import inspect
    target = function.__init__ if inspect.isclass(function) else function
    parameters = [p.name for p in inspect.signature(target).parameters.values()
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]
    note = "%s takes no keyword %r" % (written or getattr(function, "__name__", "it"), keyword)
    close = difflib.get_close_matches(keyword, parameters, n=3, cutoff=0.6)
    if close:
        note += "; the closest: %s" % ", ".join(close)
    siblings = holding_name(function)
    if siblings:
        note += "; names like it: %s" % ", ".join(siblings)
    if parameters:
        more = ", \u2026" if len(parameters) > MAX_PARAMETERS else ""
        note += "; its parameters: %s%s" % (", ".join(parameters[:MAX_PARAMETERS]), more)
    return note


def holding_name(function):
    """Public names of the function's module that hold its name in whole words
    (root_mean_squared_error beside mean_squared_error), at most MAX_SIBLINGS; [] for a
    method or when there are more."""
    own = getattr(function, "__name__", "")
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    if not own or module is None or "." in getattr(function, "__qualname__", own):
        return []
    public = [name for name in dir(module) if not name.startswith("_")]
    return holding_words(own, public, MAX_SIBLINGS)
