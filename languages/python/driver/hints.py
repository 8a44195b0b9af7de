"""Did-you-mean notes after a failure. After a KeyError: the keys the dict on the failing
line has, or the columns of the table, with those like the missing one (or the column that
holds it as a value, in a table in long form, or the row under the header that holds it).
After a module has no such attribute: the names it has that are like it. After a syntax error
inside an f-string: work the value out on its own line. After text failed to convert to a
number: the table column it came from, and how to clean it, skip it or leave the column out.
After a path was not found: paths.py. After a keyword a call does not take: calls.py.

Runs inside the user's python3 (compatible with Python 3.8); never imports pandas itself.
"""

import sys

from .state import clipped, failing_frame, failing_names, listed, short, tables_in

MAX_KEYS = 20  # dict keys named in one note
MAX_SEARCHED = 50  # text columns searched for a value that is not a number
HEADER_ROWS = 5  # first rows of a table searched for a missing column's name
NOT_FOUND = "Column not found: "  # pandas' KeyError text after groupby(...)[column]
TEXT_DTYPES = ("object", "string", "str", "category")  # pandas columns that may hold names
VALUE_ROWS = 100000  # rows of a text column searched for a missing column's name


def failing_frame_names(exc, namespace):
    """The variables the innermost frame of the user's code sees: its locals over the
    namespace."""
    found = failing_frame(exc)[0]
    seen = dict(namespace)
    if found is not None and found.f_locals is not namespace:
        seen.update(found.f_locals)
    return seen


def abbreviates(key, name):
    """Whether a key is an abbreviation of a name: qty of quantity, amt of amount."""
    key, name = key.lower(), name.lower()
    if len(key) < 2 or len(key) >= len(name) or key[0] != name[0]:
        return False
    letters = iter(name)
    return all(char in letters for char in key)


def closest(key, names):
    """The names like a missing key: the same in another case or with spaces around it, a
    close spelling, the one name it abbreviates, or the few (up to 3) names that hold it as
    whole words (a label with a qualifier around it: "Price" in "Unit Price"); [] when none."""
    import difflib
    if not isinstance(key, str):
        return []
    names = [name for name in names if isinstance(name, str)]
    lowered = {name.strip().lower(): name for name in names}
    if key.strip().lower() in lowered:
        return [lowered[key.strip().lower()]]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.8)
    short_for = [name for name in names if abbreviates(key, name)]
    holding = holding_words(key.strip(), names, 3) if len(key.strip()) >= 3 else []
    return close or (short_for if len(short_for) == 1 else []) or holding


def holding_words(part, names, most):
    """The names (other than `part` itself) that hold `part` as whole words, in any case
    ("Price" in "Unit Price", "mean_squared_error" in "root_mean_squared_error": an underscore
    parts words); [] when there are more than `most`."""
    import re
    words = re.compile(r"(?<![^\W_])%s(?![^\W_])" % re.escape(part.lower()))
    found = [name for name in names if name != part and words.search(name.lower())]
    return found if len(found) <= most else []


def placed(name, value, key):
    """What a variable on the failing line says about the missing key: the keys of a dict, or
    the columns of a table like it; or None."""
    if isinstance(value, dict):
        if not value or key in value:
            return None
        keys = list(value)
        text = ", ".join(short(k) for k in keys[:MAX_KEYS])
        more = ", \u2026 (%d keys)" % len(keys) if len(keys) > MAX_KEYS else ""
        close = closest(key, keys)
        note = "%s has no key %s; its keys: %s%s" % (name, short(repr(key)), text, more)
        return note + ("; the closest: %s" % ", ".join(close) if close else "")
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(value, pd.DataFrame) or key in value.columns:
        return None
    close = closest(key, list(value.columns))
    if not close:
        return value_of_column(name, value, key) or header_below(name, value, key)
    note = "%s has no column %r; the closest: %s" % (
        name, key, ", ".join(short(label) for label in close))
    if isinstance(key, str) and isinstance(close[0], str) and close[0] != close[0].strip():
        note += " (spaces around the name: %s.columns = %s.columns.str.strip() removes them)" % (
            name, name)
    return note


def header_below(name, table, key):
    """The note for a column name that is a value in one of the table's first HEADER_ROWS
    rows: the file's header is further down (a title line above it, as spreadsheets export),
    and the read's `header=` takes it from there; or None."""
    if not isinstance(key, str) or not key.strip():
        return None
    wanted = key.strip().lower()
    numbered = all(isinstance(label, int) for label in table.columns)  # read with header=None
    for row in range(min(HEADER_ROWS, len(table))):
        values = [v for v in table.iloc[row].tolist() if isinstance(v, str) and v.strip()]
        if any(v.strip().lower() == wanted for v in values):
            line = row if numbered else row + 1
            return ("%s has no column %r, but its row %d holds it (%s): the file's header is "
                    "on a later line; header=%d in the read_csv or read_excel call takes the "
                    "column names from there" % (name, key, row, ", ".join(
                        short(v) for v in values[:8]), line))
    return None


def value_of_column(name, table, key):
    """The note for a missing column name that is a value of one of the table's text columns
    (of the first MAX_SEARCHED, in their first VALUE_ROWS rows) in more than one row: the
    table is in long form, a row per kind with the kind in that column, so the rows of that
    kind are selected rather than a column; or None. (A name found once, in the first rows,
    is a header further down.)"""
    if not isinstance(key, str) or not key.strip():
        return None
    for label in list(table.columns)[:MAX_SEARCHED]:
        column = table[label]
        if getattr(column, "ndim", 0) != 1 or str(column.dtype) not in TEXT_DTYPES:
            continue
        column = column.iloc[:VALUE_ROWS]
        try:
            found = int((column == key).sum()) > 1
        except Exception:  # an odd column: no note from it
            continue
        if found:
            return ("%s has no column %r, but %r is a value of its column %s: the table has a "
                    "row per %s, so take the rows %s[%s[%s] == %r] and the column that holds "
                    "their values" % (name, key, key, short(repr(label)), short(repr(label)),
                                      name, name, short(repr(label)), key))
    return None


LISTED_KEYS = ("\\[(.*)\\] not (?:in index|found in axis)",  # df[[...]], drop(columns=[...])
               "None of \\[Index\\((\\[.*\\]), dtype=.*\\)\\] are in the \\[\\w+\\]")


def missing_keys(key):
    """The keys a KeyError says are missing: itself, the labels of a list pandas raises
    (dropna(subset=[...])), or those its message lists (`['a'] not in index`)."""
    import ast
    import re
    if isinstance(key, (list, tuple)):
        return [k for k in key if isinstance(k, str)]
    if not isinstance(key, str):
        return [key]
    if key.startswith(NOT_FOUND):
        return [key[len(NOT_FOUND):]]
    for pattern in LISTED_KEYS:
        found = re.fullmatch(pattern, key, re.S)
        if found:
            try:
                listed = ast.literal_eval("[%s]" % found.group(1).strip("[]"))
            except (ValueError, SyntaxError):
                return [key]
            return [k for k in listed if isinstance(k, str)]
    return [key]


def key_note(namespace, exc):
    """The note for a failed block, or None: the keys or columns like the key of a KeyError,
    of the tables and dicts named on the failing line."""
    if type(exc) is not KeyError or len(exc.args) != 1:
        return None
    try:
        seen = failing_frame_names(exc, namespace)
        for key in missing_keys(exc.args[0]):
            hash(key)
            for name in sorted(failing_names(exc)):
                note = placed(name, seen.get(name), key)
                if note:
                    return clipped(note)
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None
    return None


def syntax_note(exc):
    """The note for a syntax error inside an f-string's braces, or None: an expression too
    involved for them (conditions, nested quotes) is worked out on a line of its own."""
    if type(exc) is not SyntaxError or not str(exc.msg or "").startswith("f-string"):
        return None
    return ("the error is inside an f-string's braces: compute that value on a line of its "
            "own (value = ...), then put only the name in the f-string: f\"...{value}...\"")


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
    note = "%s has no %s; names like it: %s" % (found.group(1), found.group(2), ", ".join(close))
    return clipped(note)


NOT_A_NUMBER = ("could not convert string to float: (.+)$",
                "invalid literal for int\\(\\) with base 10: (.+)$")
MAX_SEARCHED_TABLES = 8  # tables searched for the text that is not a number
MAX_READ = 200  # values of the column read to tell numbers written as text from text
WRITTEN_AROUND = " ,_'$%\u20ac\u00a3\u00a5"  # what people write in numbers: 1,299.00 $5 12 %


def readable(text):
    """Whether float() reads a text."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def written_signs(series):
    """The separators, currency and percent signs a text column's numbers are written with
    (\"\" when none), when most of its values (the first MAX_READ that are not empty) are
    numbers once those are left out; None for a column of names or ids."""
    values = [str(value) for value in series.dropna().head(MAX_READ)]
    numbers = [value for value in values
               if readable("".join(c for c in value if c not in WRITTEN_AROUND))]
    if len(numbers) * 2 <= len(values):
        return None
    return "".join(c for c in WRITTEN_AROUND if c != " " and any(c in v for v in numbers))


def text_columns(pd, table):
    """The columns of a DataFrame (or the one of a Series) that hold text, by label."""
    if isinstance(table, pd.Series):
        return [] if pd.api.types.is_numeric_dtype(table.dtype) else [table.name]
    return [label for label, dtype in table.dtypes.items()
            if not pd.api.types.is_numeric_dtype(dtype)]


def holding(namespace, exc, value):
    """(table name, column, the table's text columns, {text column: the signs its numbers
    are written with} for those that hold numbers written as text) of the first table in
    memory with a text column that holds the value: those on the failing line first; or None."""
    pd = sys.modules.get("pandas")
    if pd is None:
        return None
    tables = tables_in(pd, failing_frame_names(exc, namespace), exc)
    searched = 0
    for name, table in tables[:MAX_SEARCHED_TABLES]:
        columns = text_columns(pd, table)[:MAX_SEARCHED]
        for label in columns:
            if searched == MAX_SEARCHED:
                return None
            searched += 1
            series = column_of(pd, table, label)
            if isinstance(series, pd.Series) and (series == value).any():
                signs = {c: written_signs(column_of(pd, table, c)) for c in columns}
                return name, label, columns, {c: s for c, s in signs.items() if s is not None}
    return None


def removals(chars):
    """The .replace calls that remove these characters."""
    return "".join(".replace(%r, '')" % c for c in chars)


def column_of(pd, table, label):
    """A DataFrame's column by label, or the Series itself."""
    return table if isinstance(table, pd.Series) else table[label]


def number_note(exc, namespace):
    """The note for a failed block, or None: where in the tables in memory the text that is
    not a number is, and what to do. A column that is mostly numbers: how to clean or skip
    the others. A column of text (names, ids) given to code that needs numbers, such as a
    model's fit: how to leave text columns out or encode them, that converting would empty
    it, and which of the table's text columns hold numbers written as text, to convert first."""
    import ast
    import re
    if not isinstance(exc, ValueError):
        return None
    try:
        found = [re.search(pattern, str(exc)) for pattern in NOT_A_NUMBER]
        found = [match for match in found if match]
        value = ast.literal_eval(found[0].group(1)) if found else None
        if not isinstance(value, str) or readable(value):  # int('12.5'): a float, not text
            return None
        skip = "pd.to_numeric(column, errors='coerce') makes them empty"
        how = "is mostly numbers: to skip the values that are not, " + skip
        signs = list(dict.fromkeys(c for c in value if c in WRITTEN_AROUND))
        if signs and readable("".join(c for c in value if c not in WRITTEN_AROUND)):
            how = ("holds numbers written with other characters: remove them (for example "
                   "%s) before converting" % removals(signs))
        around = list(dict.fromkeys(c for c in value if not (c.isdigit() or c in ".-")))
        if any(c.isdigit() for c in value) and around:
            alone = ("%r holds a number with other characters around it: remove them (for "
                     "example %s) before converting" % (value, removals(around)))
        else:
            alone = ("%r is not a number: to skip such values, convert inside try/except "
                     "ValueError (for a pandas column: %s)" % (value, skip))
        place = holding(namespace, exc, value)
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None
    if place is None:
        return clipped(alone)
    name, label, columns, numbers = place
    where = "%r is a value of column %s of %s" % (value, short(repr(label)), name)
    if label in numbers:
        return clipped("%s, which %s" % (where, how))
    note = ("%s, which holds text, not numbers (%s's text columns: %s): code that needs "
            "numbers, such as a model's fit, takes only the number columns "
            "(%s.select_dtypes('number')) or text turned into numbers (pd.get_dummies for "
            "categories); converting such a column to numbers would leave it empty"
            % (where, name, listed(columns), name))
    if numbers:
        signs = "".join(sorted(set("".join(numbers.values())), key=WRITTEN_AROUND.index))
        convert = "".join(".str.replace(%r, '')" % c for c in signs)
        note += ("; but %s hold numbers written as text: convert them first, each with "
                 "pd.to_numeric(%s[column]%s)" % (listed(numbers), name, convert))
    return clipped(note)
