"""What interp writes on a terminal wraps at word boundaries, in the real `interp` in a pty:
`interp rewind --list`, the key help after a wrong key, the long-output marker and `/rewind`'s
list (its wrapped lines indented, not at column 0). A word is never broken across two rows
unless it is longer than a row (a path the terminal wraps)."""

from __future__ import annotations

import re
import tempfile

import pexpect

from helpers import interp_cmd, model_args, run_interp
from pty_terminal import QUESTION, Term, fenced, screen_lines, visible_text

FILES = ("quarterly-revenue-by-region.csv", "customer-retention-summary.json",
         "monthly-active-users-report.txt", "forecast-assumptions-notes.md")
MAKE = "\n".join(f"open('{name}', 'w').write('x')" for name in FILES) + "\nprint('made')"


def broken_words(raw: str, columns: int) -> list[str]:
    """The words a terminal of `columns` splits across two rows: a line of the output longer
    than a row wraps there, and a word that crosses that point and would have fitted on a row
    of its own is broken."""
    broken = []
    for line in visible_text(raw).split("\n"):
        for cut in range(columns, len(line), columns):
            if line[cut - 1] != " " and line[cut] != " ":
                start, end = line.rfind(" ", 0, cut) + 1, line.find(" ", cut)
                word = line[start:end if end >= 0 else len(line)]
                if len(word) <= columns:
                    broken.append(word)
    return broken


def _spawn(interp_env, args: list[str], columns: int, env: dict | None = None) -> Term:
    full = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
                COLUMNS=str(columns), **(env or {}))  # rich's width is the terminal's
    child = pexpect.spawn(interp_cmd()[0], interp_cmd()[1:] + args, env=full,
                          cwd=str(interp_env["cwd"]), dimensions=(40, columns),
                          encoding="utf-8", timeout=30)
    return Term(child)


def _made_files(fake_server, interp_env) -> None:
    fake_server.script([fenced("python", MAKE), "Made them."])
    done = run_interp(["-y", "-e", "make the files", *model_args(fake_server)], interp_env)
    assert done.returncode == 0, done.stderr


def test_rewind_list_wraps_at_words_with_the_changes_under_their_column(fake_server,
                                                                         interp_env):
    _made_files(fake_server, interp_env)
    term = _spawn(interp_env, ["rewind", "--list"], 80)
    assert term.wait() == 0
    rows = screen_lines(term.raw, 80)
    assert not broken_words(term.raw, 80), rows
    assert "as it was before block N):" in " ".join(rows)
    listed = rows[rows.index(next(r for r in rows if r.lstrip().startswith("1  python"))):]
    assert len(listed) > 1 and all(r.startswith(" " * 6) for r in listed[1:]), listed
    assert all(name in " ".join(listed) for name in FILES)


def test_the_key_help_the_long_output_marker_and_rewinds_list_wrap_at_words(fake_server,
                                                                             interp_env):
    data = tempfile.mkdtemp(prefix="d", dir="/tmp")  # a path that fits a row, but not the rest
    interp_env["env"]["XDG_DATA_HOME"] = data
    _made_files(fake_server, interp_env)
    fake_server.script([fenced("python", "for i in range(3000):\n    print('line', i)"),
                        "Printed."])
    term = _spawn(interp_env, [*model_args(fake_server), "--resume"], 80)
    term.task("print lines")
    term.question()
    term.send("x")  # a wrong key: the help says which keys
    term.expect(r"Esc or Ctrl-C\s+stops the turn\.")
    term.expect(QUESTION)
    term.send("y")
    term.expect(r"full output:")
    term.expect("Printed.")
    term.task("/rewind")
    term.expect(r"Rewind to before which block\? \[1-2, Enter cancels\]: ")
    term.line("")
    term.expect("Rewind cancelled: nothing changed.")
    assert term.exit_status() == 0
    rows = screen_lines(term.raw, 80)
    assert not broken_words(term.raw, 80), rows
    marker = next(i for i, r in enumerate(rows) if "lines left out (full output:" in r)
    path = re.search(r"(/tmp/d\S+?output\.txt)", "".join(rows[marker:marker + 3])).group(1)
    assert any(path in row for row in rows[marker:marker + 3])  # whole on one row
    listed = next(i for i, r in enumerate(rows) if r.lstrip().startswith("1  python"))
    assert rows[listed + 1].startswith(" " * 6)  # not at column 0
