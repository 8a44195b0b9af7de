"""After a block fails: a note naming the pandas tables the user's code holds, with their
columns and index, which is what a person looks at first after a KeyError on a column; after
a NameError, where the block assigns the name, if anywhere.

Runs inside the user's python3 (compatible with Python 3.8); never imports pandas itself.
"""

import linecache
import sys

MAX_TABLES = 4  # tables named in one note
MAX_COLUMNS = 20  # column names per table
MAX_NAME = 30  # characters of one column or index name
MAX_NOTE = 1200  # characters of the whole note


def short(value):
    """One column or index name, short and on one line; quoted when spaces begin or end it
    (a header written `a, b` has the column ' b', which reads like 'b')."""
    try:
        text = str(value)
    except Exception:  # a label with a broken __str__
        text = "?"
    text = text.replace("\n", " ")
    if isinstance(value, str) and text != text.strip():  # ' price': the space must show
        text = repr(text)
    return text if len(text) <= MAX_NAME else text[:MAX_NAME - 1] + "\u2026"


def listed(labels):
    """Up to MAX_COLUMNS labels, comma-separated, with how many more there are."""
    labels = list(labels)
    text = ", ".join(short(label) for label in labels[:MAX_COLUMNS])
    if len(labels) > MAX_COLUMNS:
        text += ", \u2026 (%d columns)" % len(labels)
    return text


def index_part(index):
    """The index of a table when it says something: its level names."""
    names = [name for name in getattr(index, "names", []) if name is not None]
    return "; index %s" % listed(names) if names else ""


def describe_table(pd, name, value):
    """One table: its name, kind, size, columns and index."""
    if isinstance(value, pd.DataFrame):
        return "%s (DataFrame, %d rows; columns %s%s)" % (
            name, len(value.index), listed(value.columns), index_part(value.index))
    label = "" if value.name is None else " %s" % short(value.name)
    return "%s (Series%s, %d values%s)" % (name, label, len(value.index), index_part(value.index))


def failing_frame(exc):
    """(frame, line number) of the innermost frame of the user's own code, or (None, 0)."""
    found, tb = (None, 0), exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<block"):
            found = (tb.tb_frame, tb.tb_lineno)
        tb = tb.tb_next
    return found


def clipped(note):
    """A note cut to MAX_NOTE characters."""
    return note if len(note) <= MAX_NOTE else note[:MAX_NOTE - 1] + "\u2026"


def failing_names(exc):
    """The names on the failing line of the user's own code (the innermost such frame)."""
    frame, number = failing_frame(exc)
    line = linecache.getline(frame.f_code.co_filename, number) if frame is not None else ""
    words, word = set(), ""
    for char in line + " ":
        if char.isalnum() or char == "_":
            word += char
        elif word:
            words.add(word)
            word = ""
    return words


def from_pandas(exc):
    """Whether the error was raised inside pandas, or is one a wrong label or column causes."""
    if isinstance(exc, (KeyError, IndexError, AttributeError, NameError)):
        return True
    tb = exc.__traceback__
    while tb is not None:
        if "pandas" in tb.tb_frame.f_code.co_filename.replace("\\", "/").split("/"):
            return True
        tb = tb.tb_next
    return False


def tables_in(pd, names, exc):
    """(name, table) of the DataFrames and Series among `names` (a namespace), those on the
    failing line first, the rest in the namespace's order."""
    named = failing_names(exc)
    tables = [(name, value) for name, value in list(names.items())
              if not name.startswith("_") and isinstance(value, (pd.DataFrame, pd.Series))]
    return sorted(tables, key=lambda entry: entry[0] not in named)  # stable: order kept


def tables_note(namespace, exc):
    """The note for a failed block, or None: the DataFrames and Series in the namespace (those
    on the failing line first), when pandas is in use and the error is one they explain."""
    pd = sys.modules.get("pandas")
    if pd is None or not from_pandas(exc):
        return None
    try:
        tables = tables_in(pd, namespace, exc)
        if not tables:
            return None
        shown = [describe_table(pd, name, value) for name, value in tables[:MAX_TABLES]]
    except Exception:  # the user's objects may be in any state; the note is only a help
        return None
    more = len(tables) - len(shown)
    return clipped("tables in memory now: " + "; ".join(shown)
                   + (" and %d more" % more if more else ""))


def bindings(tree, name):
    """The nodes of a parsed block that bind `name`."""
    import ast
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                found.append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((alias.asname or alias.name.split(".")[0]) == name for alias in node.names):
                found.append(node)
    return found


def comprehension_line(tree, name):
    """The line of the comprehension loop (`for name in ...`) binding `name` when nothing
    else in the parsed block binds it, else 0: it exists only inside that comprehension."""
    import ast
    looped = {id(sub): sub.lineno for node in ast.walk(tree) if isinstance(node, ast.comprehension)
              for sub in ast.walk(node.target) if isinstance(sub, ast.Name) and sub.id == name}
    found = bindings(tree, name)
    if looped and all(id(node) in looped for node in found):
        return min(looped.values())
    return 0


def name_note(exc):
    """The note for a NameError in a block, or None: that nothing in the block assigns the
    name (a line assigning it was dropped from the failed block before), or that the lines
    that do ran too late or not at all."""
    import ast
    import re
    if type(exc) is not NameError:
        return None
    found = re.match(r"name '(\w+)' is not defined", str(exc))
    frame, number = failing_frame(exc)
    if found is None or frame is None:
        return None
    name = found.group(1)
    try:
        tree = ast.parse("".join(linecache.getlines(frame.f_code.co_filename)))
    except (SyntaxError, ValueError):
        return None
    lines = sorted({node.lineno for node in bindings(tree, name)})
    looped = comprehension_line(tree, name)
    if looped:
        return ("%s exists only inside the comprehension that loops over it (`for %s in ...`, "
                "line %d); line %d uses it outside that comprehension, where an outer loop or "
                "its condition cannot see it" % (name, name, looped, number))
    if not lines:
        return "nothing in this code assigns %s" % name
    if lines[0] > number:
        return "%s is first assigned on line %d, after line %d uses it" % (name, lines[0], number)
    return ("line %d assigns %s, but it had not run when line %d used it"
            % (lines[0], name, number))
