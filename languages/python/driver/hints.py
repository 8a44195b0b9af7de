"""After a KeyError: where the missing key is after all (a level of a table's MultiIndex, a
value of one of its columns, a part such as the quarter of a column of dates, a sheet of a
workbook here: paths.py), or which keys the dict on the failing line has, with the failing
line as it reads with a key like it (linefix.py). After a module has no such attribute: the
names it has that are like it (numpy 2 has trapezoid, not trapz). After text failed to convert to a number: how to clean it ('$1,299.00') or skip it
('N/A'). After any failure: a table whose header is a row of numbers (a headerless file read
with one). After a path was not found: paths.py.

Runs inside the user's python3 (compatible with Python 3.8), after state.py and linefix.py;
never imports pandas itself.
"""

MAX_KEYS = 20  # dict keys named in one note
MAX_SEARCHED = 50  # columns whose values are searched for the key
NOT_FOUND = "Column not found: "  # pandas' KeyError text after groupby(...)[column]
MERGED = ("_x", "_y")  # the suffixes merge() gives a column both tables have
MAX_SAMPLED = 20  # values of a text column that must all parse as dates
DATE_PARTS = {  # a missing column named like a part of a date: the .dt accessor that gives it
    "year": "year", "quarter": "quarter", "month": "month", "week": "isocalendar().week",
    "day": "day", "weekday": "dayofweek", "dayofweek": "dayofweek", "day_of_week": "dayofweek",
    "hour": "hour", "month_name": "month_name()", "day_name": "day_name()"}


def failing_frame_names(exc, namespace):
    """The variables the innermost frame of the user's code sees: its locals over the
    namespace."""
    found = failing_frame(exc)[0]
    seen = dict(namespace)
    if found is not None and found.f_locals is not namespace:
        seen.update(found.f_locals)
    return seen


def in_levels(pd, name, labels, key, axis):
    """Where a key is in a MultiIndex other than its first level, as (note, the LevelSelect
    that selects it), or None."""
    if not isinstance(labels, pd.MultiIndex):
        return None
    for level in range(1, labels.nlevels):
        if key in labels.levels[level]:
            level_name = labels.names[level]
            ref = repr(level_name) if level_name is not None else str(level)
            axis_part = ", axis=1" if axis == "columns" else ""
            select = LevelSelect("%s.xs(%r, level=%s%s)" % (name, key, ref, axis_part),
                                 rows=axis == "index")
            return ("%r is in level %s of %s's %s: %s selects it" % (key, ref, name, axis, select),
                    select)
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


def in_columns(name, table, key, seen=None, wanted=None):
    """A merge's _x/_y columns named like the missing one, as (note, None), or (None, None);
    as (note, MergeRename) when another table in `seen` has the column: the rename that keeps
    both columns apart (to `wanted`, the name the failing line asks for, if any)."""
    if not isinstance(key, str) or key in table.columns:
        return None, None
    names = [column for column in table.columns if isinstance(column, str)]
    merged = [column for column in names if column in [key + end for end in MERGED]]
    if merged:
        note = ("%s has no column %r, but %s: merge() adds _x and _y to a column both tables "
                "have" % (name, key, " and ".join(merged)))
        other = merged_from(seen or {}, name, key)
        if other is None:
            return note + " (merge on it, or drop it from one table first)", None
        rename = MergeRename((other, key, wanted or "%s_%s" % (other, key)))
        return (note + "; to keep both, rename it in %s before the merge: %s = %s"
                % (other, other, rename.call())), rename
    if key.endswith(MERGED) and key[:-2] in names:
        return ("%s has no column %r, but %r: the _x and _y names exist only after a merge of "
                "two tables that both have %r" % (name, key, key[:-2], key[:-2])), None
    return None, None


def merged_from(seen, name, key):
    """The other DataFrame in `seen` that has the column `key` (what was merged in), or None."""
    pd = sys.modules.get("pandas")
    for other, value in seen.items():
        if (other != name and not other.startswith("_") and pd is not None
                and isinstance(value, pd.DataFrame) and key in value.columns):
            return other
    return None


def asked_names(exc, table):
    """The quoted names on the failing line that are not columns of `table`."""
    import linecache
    import re
    frame, number = failing_frame(exc)
    line = linecache.getline(frame.f_code.co_filename, number) if frame is not None else ""
    return [found[1] for found in re.findall(r"\[\s*([\"'])(\w+)\1\s*\]", line)
            if found[1] not in table.columns]


def abbreviates(key, name):
    """Whether a key is an abbreviation of a name: qty of quantity, amt of amount."""
    key, name = key.lower(), name.lower()
    if len(key) < 2 or len(key) >= len(name) or key[0] != name[0]:
        return False
    letters = iter(name)
    return all(char in letters for char in key)


def closest(key, names):
    """The names like a missing key: the same in another case, a close spelling, or the one
    name it abbreviates; [] when none."""
    import difflib
    if not isinstance(key, str):
        return []
    names = [name for name in names if isinstance(name, str)]
    lowered = {name.lower(): name for name in names}
    if key.lower() in lowered:
        return [lowered[key.lower()]]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.8)
    short_for = [name for name in names if abbreviates(key, name)]
    return close or (short_for if len(short_for) == 1 else [])


def holds_dates(pd, values):
    """Whether a column holds dates: datetime64, or text whose first values all parse as
    dates (with a digit and one of - / :, so that plain numbers and names do not count)."""
    import warnings
    if pd.api.types.is_datetime64_any_dtype(values):
        return True
    if not pd.api.types.is_string_dtype(values):
        return False
    sample = list(values.dropna()[:MAX_SAMPLED])
    if not sample or not all(isinstance(text, str) and any(c.isdigit() for c in text)
                             and any(c in "-/:" for c in text) for text in sample):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pd.to_datetime(sample)
    except Exception:  # not dates, or not all in one format
        return False
    return True


def in_dates(pd, name, table, key):
    """A column of dates that gives the missing column (a quarter, a month...), as a note, or
    None."""
    part = DATE_PARTS.get(key.lower()) if isinstance(key, str) else None
    if part is None or key in table.columns:
        return None
    for column in list(table.columns)[:MAX_SEARCHED]:
        values = table[column]
        if isinstance(values, pd.Series) and holds_dates(pd, values):
            dates = "%s[%r]" % (name, column)
            if not pd.api.types.is_datetime64_any_dtype(values):
                dates = "pd.to_datetime(%s)" % dates
            return ("%s has no column %r, but its column %r holds dates: %s.dt.%s gives the %s"
                    % (name, key, column, dates, part, key))
    return None


def placed(name, value, key, seen=None, exc=None):
    """What a variable on the failing line says about the missing key, as (note, a key like
    it to use instead or how to reach it: linefix.py), or (None, None); `seen`: the
    variables of the failing frame, `exc` the error (for the failing line)."""
    if isinstance(value, dict):
        if not value or key in value:
            return None, None
        keys = list(value)
        text = ", ".join(short(k) for k in keys[:MAX_KEYS])
        more = ", \u2026 (%d keys)" % len(keys) if len(keys) > MAX_KEYS else ""
        close = closest(key, keys)
        note = "%s has no key %s; its keys: %s%s" % (name, short(repr(key)), text, more)
        return note + ("; the closest: %s" % ", ".join(close) if close else ""), first(close)
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(value, (pd.Series, pd.DataFrame)):
        return None, None
    axes = [("index", value.index)] + ([("columns", value.columns)]
                                       if isinstance(value, pd.DataFrame) else [])
    for axis, labels in axes:
        found = in_levels(pd, name, labels, key, axis)
        if found:
            return found
    if not isinstance(value, pd.DataFrame):
        return None, None
    wanted = [asked for asked in (asked_names(exc, value) if exc is not None else [])
              if asked != key and isinstance(key, str) and key in asked]
    note = in_values(pd, name, value, key)
    if note:
        return note, None
    note, rename = in_columns(name, value, key, seen, first(wanted))
    if note:
        return note, rename
    sheet = str(key) if isinstance(key, (str, int)) and key not in value.columns else None
    book = workbook_with_sheet(sheet) if sheet else None
    if book:
        return ("%s has no column %r, but %s has a sheet %r: pd.read_excel(%r, sheet_name=%r) "
                "reads it" % (name, key, book, sheet, book, sheet)), SheetRead((book, sheet))
    close = [] if key in value.columns else closest(key, list(value.columns))
    if close:
        return "%s has no column %r; the closest: %s" % (name, key, ", ".join(close)), close[0]
    return in_dates(pd, name, value, key), None


def first(items):
    """The first item, or None."""
    return items[0] if items else None


def key_note(namespace, exc, fixes=None):
    """The note for a failed block, or None: where the key of a KeyError is, for the tables
    and dicts named on the failing line; a rewrite of that line goes to `fixes`."""
    if type(exc) is not KeyError or len(exc.args) != 1:
        return None
    key = exc.args[0]
    if isinstance(key, str) and key.startswith(NOT_FOUND):
        key = key[len(NOT_FOUND):]
    try:
        hash(key)
        seen = failing_frame_names(exc, namespace)
        for name in sorted(failing_names(exc)):
            note, other = placed(name, seen.get(name), key, seen, exc)
            if isinstance(other, SheetRead):
                return clipped(note + sheet_line(exc, name, key, other, fixes))
            if isinstance(other, LevelSelect):
                return clipped(note + level_line(exc, name, key, other, fixes))
            if isinstance(other, MergeRename):
                return clipped(note + merge_line(exc, name, other, fixes))
            if note:
                return clipped(note + (keyed_line(exc, key, other, fixes) if other else ""))
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None
    return None


MODULE_ATTRIBUTE = "module '([\\w.]+)' has no attribute '(\\w+)'"


def attribute_note(exc, fixes=None):
    """The note for a failed block, or None: names like the missing one, when a module the
    code uses has no such attribute; a rewrite of the failing line goes to `fixes`."""
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
    note = "%s has no %s; names like it: %s" % (found.group(1), found.group(2), ", ".join(close))
    return clipped(note + renamed_line(exc, found.group(2), close[0], fixes))


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


NOT_A_NUMBER = ("could not convert string to float: (.+)",
                "invalid literal for int\\(\\) with base 10: (.+)")


def readable(text):
    """Whether float() reads a text."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def number_note(exc):
    """The note for a failed block, or None: how to clean or skip text that is not a number."""
    import ast
    import re
    if not isinstance(exc, ValueError):
        return None
    try:
        found = [re.fullmatch(pattern, str(exc), re.S) for pattern in NOT_A_NUMBER]
        found = [match for match in found if match]
        value = ast.literal_eval(found[0].group(1)) if found else None
        if not isinstance(value, str) or readable(value):  # int('12.5'): a float, not text
            return None
        around = [c for c in value if not (c.isdigit() or c in ".-")]
        around = sorted(set(around), key=around.index)
        if any(c.isdigit() for c in value) and around:
            replaced = "".join(".replace(%r, '')" % c for c in around)
            return clipped("%r holds a number with other characters around it: remove them (for "
                           "example %s) before converting" % (value, replaced))
    except Exception:  # the note is only a help
        return None
    return clipped("%r is not a number: to skip such values, convert inside try/except ValueError "
                   "(for a pandas column: pd.to_numeric(column, errors='coerce') makes them "
                   "empty)" % value)
