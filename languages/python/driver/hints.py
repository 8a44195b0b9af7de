"""After a KeyError: where the missing key is after all (a level of a table's MultiIndex, a
value of one of its columns), or which keys the dict on the failing line has. After a module
has no such attribute: the names it has that are like it (numpy 2 has trapezoid, not trapz).
After any failure: a table whose header is a row of numbers (a headerless file read with one).

Runs inside the user's python3 (compatible with Python 3.8), after state.py; never imports
pandas itself.
"""

MAX_KEYS = 20  # dict keys named in one note
MAX_SEARCHED = 50  # columns whose values are searched for the key
NOT_FOUND = "Column not found: "  # pandas' KeyError text after groupby(...)[column]
MERGED = ("_x", "_y")  # the suffixes merge() gives a column both tables have


def failing_frame_names(exc, namespace):
    """The variables the innermost frame of the user's code sees: its locals over the
    namespace."""
    found = failing_frame(exc)[0]
    seen = dict(namespace)
    if found is not None and found.f_locals is not namespace:
        seen.update(found.f_locals)
    return seen


def in_levels(pd, name, labels, key, axis):
    """Where a key is in a MultiIndex other than its first level, as a note, or None."""
    if not isinstance(labels, pd.MultiIndex):
        return None
    for level in range(1, labels.nlevels):
        if key in labels.levels[level]:
            level_name = labels.names[level]
            ref = repr(level_name) if level_name is not None else str(level)
            axis_part = ", axis=1" if axis == "columns" else ""
            select = "%s.xs(%r, level=%s%s)" % (name, key, ref, axis_part)
            return "%r is in level %s of %s's %s: %s selects it" % (key, ref, name, axis, select)
    return None


def in_values(pd, name, table, key):
    """A column of a DataFrame holding the key as a value (not a label), as a note, or None."""
    if key in table.columns or key in table.index:
        return None
    for column in list(table.columns)[:MAX_SEARCHED]:
        values = table[column]
        if isinstance(values, pd.Series) and bool(values.eq(key).any()):
            return ("%r is a value of column %s of %s, not a label: %s[%s[%r] == %r] selects "
                    "its rows" % (key, short(column), name, name, name, column, key))
    return None


def in_columns(name, table, key):
    """A column named like the missing one (a merge's _x/_y, another case, a typo), as a note,
    or None."""
    if not isinstance(key, str) or key in table.columns:
        return None
    names = [column for column in table.columns if isinstance(column, str)]
    merged = [column for column in names if column in [key + end for end in MERGED]]
    if merged:
        return ("%s has no column %r, but %s: merge() adds _x and _y to a column both tables "
                "have (merge on it, or drop it from one table first)"
                % (name, key, " and ".join(merged)))
    if key.endswith(MERGED) and key[:-2] in names:
        return ("%s has no column %r, but %r: the _x and _y names exist only after a merge of "
                "two tables that both have %r" % (name, key, key[:-2], key[:-2]))
    import difflib
    lowered = {column.lower(): column for column in names}
    close = ([lowered[key.lower()]] if key.lower() in lowered
             else difflib.get_close_matches(key, names, n=3, cutoff=0.8))
    if close:
        return "%s has no column %r; the closest: %s" % (name, key, ", ".join(close))
    return None


def placed(name, value, key):
    """What a variable on the failing line says about the missing key, or None."""
    if isinstance(value, dict):
        if not value or key in value:
            return None
        keys = list(value)
        text = ", ".join(short(k) for k in keys[:MAX_KEYS])
        more = ", \u2026 (%d keys)" % len(keys) if len(keys) > MAX_KEYS else ""
        return "%s has no key %s; its keys: %s%s" % (name, short(repr(key)), text, more)
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(value, (pd.Series, pd.DataFrame)):
        return None
    axes = [("index", value.index)] + ([("columns", value.columns)]
                                       if isinstance(value, pd.DataFrame) else [])
    for axis, labels in axes:
        note = in_levels(pd, name, labels, key, axis)
        if note:
            return note
    if not isinstance(value, pd.DataFrame):
        return None
    return in_values(pd, name, value, key) or in_columns(name, value, key)


def key_note(namespace, exc):
    """The note for a failed block, or None: where the key of a KeyError is, for the tables
    and dicts named on the failing line."""
    if type(exc) is not KeyError or len(exc.args) != 1:
        return None
    key = exc.args[0]
    if isinstance(key, str) and key.startswith(NOT_FOUND):
        key = key[len(NOT_FOUND):]
    try:
        hash(key)
        seen = failing_frame_names(exc, namespace)
        for name in sorted(failing_names(exc)):
            note = placed(name, seen.get(name), key)
            if note:
                return clipped(note)
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None
    return None


MODULE_ATTRIBUTE = "module '([\\w.]+)' has no attribute '(\\w+)'"


def attribute_note(exc):
    """The note for a failed block, or None: names like the missing one, when a module the
    code uses has no such attribute."""
    import difflib
    import re
    if not isinstance(exc, AttributeError):
        return None
    try:
        found = re.fullmatch(MODULE_ATTRIBUTE, str(exc))
        module = sys.modules.get(found.group(1)) if found else None
        if module is None:
            return None
        names = [name for name in dir(module) if not name.startswith("_")]
        close = difflib.get_close_matches(found.group(2), names, n=3, cutoff=0.6)
    except Exception:  # a module's own __dir__ may fail; the note is only a help
        return None
    if not close:
        return None
    return "%s has no %s; names like it: %s" % (found.group(1), found.group(2), ", ".join(close))


def number_like(label):
    """Whether a column name is text that reads as a number, as read_csv makes of a first row
    of data."""
    try:
        float(label)
    except (TypeError, ValueError):
        return False
    return isinstance(label, str)


def header_note(namespace):
    """The note for a failed block, or None: a DataFrame whose column names are all numbers
    written as text, the first row of a headerless file read as its header."""
    pd = sys.modules.get("pandas")
    if pd is None:
        return None
    try:
        for name, value in list(namespace.items()):
            if (not name.startswith("_") and isinstance(value, pd.DataFrame)
                    and len(value.columns) >= 2 and all(map(number_like, value.columns))):
                return ("%s's column names are the numbers %s: the file's first row was read "
                        "as the header; read_csv(..., header=None) keeps it as data"
                        % (name, listed(value.columns)))
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None
    return None
