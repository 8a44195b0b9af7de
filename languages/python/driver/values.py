"""After a block runs without an error: a note naming the numbers it assigned that came out NaN.

A statistic computed on a column with missing values is NaN in numpy and scipy (pandas'
own methods skip missing values), and so is a mean or a test over an empty selection. The
block does not fail; a comparison with the NaN is simply False (`p < 0.05` on a NaN p-value
reads as "not significant"), so the mistake goes on into the answer unless someone looks.

Runs inside the user's python3 (compatible with Python 3.8); imports neither numpy nor pandas.
"""

MAX_NAMES = 4  # names listed in one note
MAX_FIELDS = 8  # fields of a result tuple looked at (a test's statistic, p-value, ...)


def is_nan(value):
    """Whether `value` is a real number (Python's or numpy's) that is NaN."""
    if isinstance(value, float):  # numpy's float64 too
        return bool(value != value)
    if type(value).__module__ != "numpy":  # other Python values are never NaN
        return False
    import numbers  # not at start-up: a numpy scalar other than float64 (float32, ...)
    if not isinstance(value, numbers.Real):
        return False
    try:
        return bool(value != value)
    except Exception:  # a number type with an odd comparison
        return False


def holds_nan(value):
    """Whether `value` is NaN, or a short tuple of numbers (a test's result) holding one."""
    if is_nan(value):
        return True
    if isinstance(value, tuple) and 0 < len(value) <= MAX_FIELDS:
        return any(is_nan(field) for field in value)
    return False


def assigned(tree):
    """The names a parsed block binds by assignment, each once, in the order ast.walk meets
    them (outer statements before the names nested inside them)."""
    import ast
    return list(dict.fromkeys(node.id for node in ast.walk(tree)
                              if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)))


def nan_note(namespace, tree):
    """The note for a block that ran, or None: the names it assigned that now hold NaN."""
    try:
        found = [name for name in assigned(tree)
                 if not name.startswith("_") and holds_nan(namespace.get(name))]
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None
    if not found:
        return None
    shown = ", ".join(found[:MAX_NAMES]) + (" and %d more" % (len(found) - MAX_NAMES)
                                             if len(found) > MAX_NAMES else "")
    verb = "holds" if len(found) == 1 else "hold"
    return ("%s %s NaN: numpy and scipy give NaN when their input has missing values (pandas' "
            "own methods skip them), and so does a statistic of an empty selection; a "
            "comparison such as < or > with NaN is False" % (shown, verb))
