"""The failing line of the user's code as a note on its error says it should read: the key
like the missing one (row["qty"] -> row["quantity"]), the name the module has (.trapz( ->
.trapezoid(), the read of a sheet a table was subscripted by (df['2024'] ->
pd.read_excel('budget.xlsx', sheet_name='2024')), a key of a level of a MultiIndex
(grades.loc['math'] -> grades.xs('math', level='subject')), and the merge before a column
both tables had went missing (pd.merge(df, means) -> pd.merge(df, means.rename(...))). Each
ends its note ("; with ..., line 8 reads: ...") and goes to `fixes`, which main.py sends to
interp as the result's fix.

Runs inside the user's python3 (compatible with Python 3.8), after state.py.
"""


class SheetRead(tuple):
    """A missing column that is a sheet of a workbook here: (workbook, sheet)."""

    def read(self, pandas):
        """The call that reads the sheet, with `pandas` as the code names the module."""
        return "%s.read_excel(%r, sheet_name=%r)" % (pandas, self[0], self[1])


class LevelSelect(str):
    """A missing key that is in a level of a table's MultiIndex: the call that selects it
    (average_grades.xs('math', level='subject')); `rows`: the level is of the index, so
    `.loc[key]` asks for it too."""

    def __new__(cls, text, rows=True):
        made = super().__new__(cls, text)
        made.rows = rows
        return made


class MergeRename(tuple):
    """A column both merged tables had, to rename in the one merged in: (other, key, new)."""

    def call(self):
        """The other table with the column renamed: means.rename(columns={'t': 'mean_t'})."""
        return "%s.rename(columns={%r: %r})" % self


def merge_line(exc, name, rename, fixes=None):
    """The line of the failing block that merged `rename`'s table into `name`, with that table
    renamed, as the end of a note; "" when the block has no such line or `name` was not made
    anew before it (run again, the rewrite would merge a merged table); the rewrite goes to
    `fixes`."""
    import linecache
    import re
    try:
        frame, number = failing_frame(exc)
        if frame is None:
            return ""
        before = linecache.getlines(frame.f_code.co_filename)[:number - 1]
        made = re.compile(r"\s*%s\s*=(?!=)" % re.escape(name))
        argument = re.compile(r"(?<![.\w])%s(?=\s*[,)]|\.merge\b)" % re.escape(rename[0]))
        merges = [at for at, line in enumerate(before) if made.match(line)
                  and re.search(r"\bmerge\s*\(", line) and argument.search(line)]
        if not merges or not any(made.match(line) for line in before[:merges[-1]]):
            return ""
        line = before[merges[-1]].strip()
        changed = argument.sub(lambda found: rename.call(), line)
        return rewritten(frame, merges[-1] + 1, line, changed, fixes, "the rename")
    except Exception:  # the note is only a help
        return ""


def sheet_line(exc, name, key, found, fixes=None):
    """The failing line with `name[...]` (the sheet's name, quoted or in a variable) as the
    read of the sheet `found` (a SheetRead), as the end of a note, or "" when the line has no
    such subscript; the rewrite is added to `fixes`."""
    import linecache

    def read(frame):
        names = dict(frame.f_globals, **frame.f_locals)
        source = "".join(linecache.getlines(frame.f_code.co_filename))
        aliases = [alias for alias, value in names.items()
                   if getattr(value, "__name__", None) == "pandas"]
        named = [alias for alias in aliases if alias + "." in source] + aliases
        return found.read(named[0] if named else "pd")
    return subscript_line(exc, name, key, read, "the sheet", False, fixes)


def level_line(exc, name, key, select, fixes=None):
    """The failing line with `name[key]` (or `name.loc[key]` for a level of the index) as
    `select` (a LevelSelect), as the end of a note, or "" when the line has no such
    subscript; the rewrite is added to `fixes`."""
    return subscript_line(exc, name, key, lambda frame: str(select), str(select), select.rows,
                          fixes)


def subscript_line(exc, name, key, replacement, what, loc, fixes=None):
    """The failing line with each subscript `name[key]` (`name.loc[key]` too when `loc`; the
    key quoted or in a variable) as `replacement(frame)`, as the end of a note, or "" when
    the line has none; the rewrite is added to `fixes`."""
    import linecache
    import re
    try:
        frame, number = failing_frame(exc)
        if frame is None:
            return ""
        line = linecache.getline(frame.f_code.co_filename, number).strip()
        names = dict(frame.f_globals, **frame.f_locals)

        def is_key(inside):
            inside = inside.strip()
            if re.match(r"^([\"'])%s\1$" % re.escape(str(key)), inside):
                return True
            return inside.isidentifier() and names.get(inside, object()) == key

        subscript = re.compile(r"\b%s%s\[([^\[\]]+)\]" % (re.escape(name),
                                                          r"(?:\.loc)?" if loc else ""))
        if not any(is_key(found_in.group(1)) for found_in in subscript.finditer(line)):
            return ""
        new = replacement(frame)
        changed = subscript.sub(lambda m: new if is_key(m.group(1)) else m.group(0), line)
        return rewritten(frame, number, line, changed, fixes, what)
    except Exception:  # the note is only a help
        return ""


def keyed_line(exc, key, other, fixes=None):
    """The failing line of the user's code with the quoted key as `other`, as the end of a
    note, or "" when the line does not quote the key; the rewrite is added to `fixes`."""
    import linecache
    import re
    try:
        frame, number = failing_frame(exc)
        line = linecache.getline(frame.f_code.co_filename, number).strip() if frame else ""
        quoted = re.compile("([\"'])%s\\1" % re.escape(key))
        if not isinstance(key, str) or not quoted.search(line):
            return ""
        changed = quoted.sub(lambda found: found.group(1) + other + found.group(1), line)
        return rewritten(frame, number, line, changed, fixes, repr(other))
    except Exception:  # the note is only a help
        return ""


def rewritten(frame, number, line, changed, fixes, other):
    """The end of a note that gives the failing line as it reads with `other` in it; the
    rewrite (its block's file name, line number, the line and the new line) goes to `fixes`."""
    if fixes is not None:
        fixes.append({"file": frame.f_code.co_filename, "line": number, "was": line,
                      "reads": changed})
    return "; with %s, line %d reads: %s" % (other, number, changed)


def renamed_line(exc, name, other, fixes=None):
    """The failing line of the user's code with `.name(` as `.other(`, as the end of a note,
    or "" when the line has no such call; the rewrite is added to `fixes`."""
    import linecache
    import re
    try:
        frame, number = failing_frame(exc)
        line = linecache.getline(frame.f_code.co_filename, number).strip() if frame else ""
        call = re.compile("\\.%s\\b(?=\\s*\\()" % re.escape(name))
        if not call.search(line):
            return ""
        return rewritten(frame, number, line, call.sub("." + other, line), fixes, other)
    except Exception:  # the note is only a help
        return ""


# pandas 3 ("dtype 'str' does not support operation 'mean'", "Cannot perform reduction 'mean'
# with string dtype") and pandas 2 ("agg function failed [how->mean,dtype->object]").
TEXT_REDUCTION = (r"dtype '(?:str|string|object)' does not support operation '(\w+)'"
                  r"|Cannot perform reduction '(\w+)' with string dtype"
                  r"|agg function failed \[how->(\w+),dtype->object\]")
NUMERIC_ONLY = ("mean", "median", "std", "var", "sem", "prod", "sum", "min", "max")


def text_reduction_note(exc, fixes=None):
    """The note for a reduction over a table with text columns (df.groupby(...).mean() in
    pandas 2 and 3), or None: numeric_only=True leaves them out; where the failing line calls
    it with no arguments, the line with it goes to `fixes`."""
    import linecache
    import re
    if not isinstance(exc, TypeError):
        return None
    found = re.search(TEXT_REDUCTION, str(exc))
    how = found and next(group for group in found.groups() if group)
    if not how or how not in NUMERIC_ONLY:
        return None
    note = ("%s() takes every column, and a text column has no %s: .%s(numeric_only=True) "
            "leaves the text columns out, or select the number columns first"
            % (how, how, how))
    try:
        frame, number = failing_frame(exc)
        line = linecache.getline(frame.f_code.co_filename, number).strip() if frame else ""
        call = re.compile(r"\.%s\(\s*\)" % how)
        if not call.search(line):
            return note
        changed = call.sub(".%s(numeric_only=True)" % how, line)
        return note + rewritten(frame, number, line, changed, fixes, "numeric_only=True")
    except Exception:  # the note is only a help
        return note


XS_CALL = r"\b(%s)\.xs\(\s*([\"'])([^\"'\n]+)\2\s*,\s*level\s*=\s*[^()]*\)"


def flat_xs_note(exc, fixes=None):
    """The note for `name.xs(key, level=...)` on a table without a MultiIndex (a pivot made
    of what was grouped by two columns), or None: the key is a column or a row label of it
    now; the line with `name[key]` or `name.loc[key]` goes to `fixes`."""
    import linecache
    import re
    if not isinstance(exc, TypeError) or "Index must be a MultiIndex" not in str(exc):
        return None
    try:
        frame, number = failing_frame(exc)
        line = linecache.getline(frame.f_code.co_filename, number).strip() if frame else ""
        names = dict(frame.f_globals, **frame.f_locals) if frame else {}
        for found in re.finditer(XS_CALL % r"\w+", line):
            name, quote, key = found.groups()
            table = names.get(name)
            if key in getattr(table, "columns", ()):
                how, where = "%s[%s%s%s]" % (name, quote, key, quote), "a column"
            elif key in getattr(table, "index", ()):
                how, where = "%s.loc[%s%s%s]" % (name, quote, key, quote), "a row label"
            else:
                continue
            note = ("%s has no MultiIndex now, and %r is %s of it: %s selects it"
                    % (name, key, where, how))
            changed = re.sub(XS_CALL % re.escape(name), lambda m: how if m.group(3) == key
                             else m.group(0), line)
            return note + rewritten(frame, number, line, changed, fixes, how)
    except Exception:  # the note is only a help
        return None
    return None
