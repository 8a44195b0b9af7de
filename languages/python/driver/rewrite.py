"""Console pastes and IPython lines in Python blocks, rewritten as Python for the driver; the
rewritten lines call `habits.py`'s `Habits`.

Runs inside the user's python3, so it stays compatible with Python 3.8. Blocks are rewritten
line for line (line numbers stay those of the block): a pasted console session (`>>> ` /
`... ` prompts, or IPython's `In [1]: ` / `...: `) keeps its code lines and blanks its output
lines; in a block that is not valid Python, `!cmd`, `x = !cmd`, `%magic args` and a leading
`%%cellmagic` become calls to `_interp_habits`.
"""

import re

CONSOLE_FIRST = re.compile(r"^\s*(>>>|In \[\d+\]:)( |$)")
CONSOLE_LINE = re.compile(r"^\s*(>>>|\.\.\.|In \[\d+\]:|\.\.\.:)( |$)")
SHELL_LINE = re.compile(r"^(\s*)(?:([\w.]+)\s*=\s*)?!(.*)$")
MAGIC_LINE = re.compile(r"^(\s*)(?:([\w.]+)\s*=\s*)?%(\w+)\s*(.*)$")
CELL_MAGIC = re.compile(r"^\s*%%(\w+)\s*(.*)$")
CONSOLE_NOTE = ("the block was a pasted console session: the code after its >>> / ... prompts "
                "ran and the output lines in it were skipped")
HABITS_NOTE = "IPython syntax in the block (!command, %magic) ran as IPython would run it"


def console_paste(source):
    """The code lines of a pasted console session (others blanked), or None if it is not one."""
    lines = source.split("\n")
    first = next((line for line in lines if line.strip()), "")
    if not CONSOLE_FIRST.match(first):
        return None
    out = []
    for line in lines:
        match = CONSOLE_LINE.match(line)
        out.append(line[match.end():] if match else "")
    return "\n".join(out)


def outside_strings(lines, candidates):
    """The candidate line numbers (0-based) that are not inside a multi-line string."""
    import io
    import tokenize
    probe = [re.match(r"\s*", lines[i]).group() + "pass" if i in candidates else line
             for i, line in enumerate(lines)]
    inside = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(probe) + "\n").readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0], token.end[0]))  # 1-based rows after the first
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return candidates
    return [i for i in candidates if i not in inside]


def ipython_lines(source):
    """The block with its IPython lines turned into calls, or None if it has none."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and CELL_MAGIC.match(lines[first]):
        name, args = CELL_MAGIC.match(lines[first]).groups()
        body = "\n".join(lines[first + 1:])
        call = "_interp_habits.cell(%r, %r, %r)" % (name, args.strip(), body)
        return "\n".join(lines[:first] + [call] + [""] * (len(lines) - first - 1))
    found = [i for i, line in enumerate(lines) if SHELL_LINE.match(line) or MAGIC_LINE.match(line)]
    if not found:
        return None
    for i in outside_strings(lines, found):
        lines[i] = ipython_call(lines[i])
    return "\n".join(lines)


def ipython_call(line):
    """One IPython line as a Python statement."""
    match = SHELL_LINE.match(line)
    if match:
        indent, target, command = match.groups()
        if target:
            return "%s%s = _interp_habits.getoutput(%r)" % (indent, target, command)
        return "%s_interp_habits.system(%r)" % (indent, command)
    indent, target, name, args = MAGIC_LINE.match(line).groups()
    call = "_interp_habits.magic(%r, %r)" % (name, args.strip())
    return "%s%s = %s" % (indent, target, call) if target else indent + call


def rewrite(source):
    """(source as Python, notes) for a block that did not parse: its IPython lines."""
    notes = []
    changed = ipython_lines(source)
    if changed is not None:
        source = changed
        notes.append(HABITS_NOTE)
    return source, notes
