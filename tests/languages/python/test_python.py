"""The Python runner, driven through real python3 processes on a pty."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import textwrap
import threading

import pytest

from languages.process.spawn import RunnerStartError
from languages.protocol import Runner, RunnerConfig
from languages.records import Output, Result
from languages.python import PythonRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


@pytest.fixture(scope="module")
def py(tmp_path_factory):
    """A shared runner for tests that leave it alive and usable."""
    runner = PythonRunner(RunnerConfig(grace=5.0, cwd=str(tmp_path_factory.mktemp("pycwd"))))
    runner.start()
    yield runner
    runner.stop()


@pytest.fixture
def fresh(make_runner, tmp_path):
    """A runner of its own, for tests that kill or restart it."""
    return make_runner(PythonRunner, cwd=str(tmp_path))


def block(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# -- interface ----------------------------------------------------------------

def test_interface(py, events):
    assert PythonRunner.name == "python"
    assert set(PythonRunner.aliases) >= {"py", "python3"}
    assert isinstance(py, Runner)
    evs = events(py, "print('hi')")
    assert [type(e) for e in evs][-1] is Result
    assert "".join(e.text for e in evs if isinstance(e, Output)) == "hi\n"
    res = evs[-1]
    assert res.status == "ok" and res.ok and not (res.died or res.restarted or res.interrupted)
    assert res.output.text == "hi\n" and res.output.total_chars == 3


def test_output_is_streamed_before_the_block_ends(py, guard, tmp_path):
    # The block waits for a file that the test creates only after it has seen the first line:
    # with buffered (non-streamed) events the block would only finish via its own fallback.
    flag = tmp_path / "go"
    code = block(f"""
        import os, time
        print('first', flush=True)
        limit = time.monotonic() + 30
        while not os.path.exists({str(flag)!r}) and time.monotonic() < limit:
            time.sleep(0.01)
        print('second', os.path.exists({str(flag)!r}))
    """)
    seen = []
    with guard():
        for ev in py.run(code):
            seen.append(ev)
            if isinstance(ev, Output) and "first" in ev.text:
                assert "second" not in ev.text
                flag.touch()
    text = "".join(e.text for e in seen[:-1])
    assert text == "first\nsecond True\n"
    firsts = [i for i, e in enumerate(seen) if isinstance(e, Output) and "first" in e.text]
    seconds = [i for i, e in enumerate(seen) if isinstance(e, Output) and "second" in e.text]
    assert firsts[0] < seconds[0] < len(seen) - 1


# -- state ----------------------------------------------------------------------

def test_state_persists_between_blocks(py, collect):
    collect(py, block("""
        import json as j
        counter = 41
        def bump(n):
            return n + 1
        class Box:
            def __init__(self, v):
                self.v = v
    """))
    out, res = collect(py, "print(bump(counter), j.dumps([1]), Box('b').v, type(Box('x')).__name__)")
    assert res.ok
    assert out == "42 [1] b Box\n"


def test_restart_loses_state(make_runner, collect):
    runner = make_runner(PythonRunner)
    collect(runner, "kept = 1")
    assert collect(runner, "print(kept)")[0] == "1\n"
    runner.restart()
    out, res = collect(runner, "print('kept' in globals())")
    assert out == "False\n" and res.ok


# -- runs like a script -----------------------------------------------------------

def test_multiline_blocks_with_blank_lines_decorators_and_compound_statements(py, collect):
    code = block("""
        import functools
        from dataclasses import dataclass

        def loud(fn):
            @functools.wraps(fn)
            def wrapper(*a):

                return fn(*a).upper()

            return wrapper

        @loud
        def greet(name):

            text = 'hello ' + name

            return text

        @dataclass
        class Point:
            x: int

            y: int = 0

        if Point(1).y == 0:
            branch = 'if'
        else:
            branch = 'else'

        try:
            1 / 0
        except ZeroDivisionError:
            caught = True
        finally:
            done = True

        with open(__import__('os').devnull) as fh:
            read = fh.read()

        for i in range(2):

            pass

        print(greet('bob'), Point(3, 4), branch, caught, done, repr(read), i, __name__)
    """)
    out, res = collect(py, code)
    assert res.ok, out
    assert out == "HELLO BOB Point(x=3, y=4) if True True '' 1 __main__\n"


def test_main_guard_runs(py, collect):
    out, _ = collect(py, "if __name__ == '__main__':\n    print('main')\nelse:\n    print('not main')")
    assert out == "main\n"


def test_async_code_at_top_level(py, collect):
    code = block("""
        import asyncio, contextlib

        @contextlib.asynccontextmanager
        async def opened(log):
            log.append('enter')
            yield 'res'
            log.append('exit')

        async def numbers(n):
            for i in range(n):
                await asyncio.sleep(0)
                yield i

        log = []
        await asyncio.sleep(0)
        async with opened(log) as r:
            log.append(r)
        total = 0
        async for n in numbers(4):
            total += n
        print(log, total)
    """)
    out, res = collect(py, code)
    assert res.ok, out
    assert out == "['enter', 'res', 'exit'] 6\n"
    out, res = collect(py, "await asyncio.sleep(0)\nawait asyncio.sleep(0, result=total * 2)")
    assert (out, res.status) == ("12\n", "ok")


@pytest.mark.parametrize("code, shown", [
    ("1 + 1", "2\n"),
    ("x = 5\nx * 2", "10\n"),
    ("'text'", "'text'\n"),
    ("[i for i in range(3)]", "[0, 1, 2]\n"),
    ("y = 3", ""),
    ("None", ""),
    ("print('p')", "p\n"),  # print's own None is not echoed
    ("z = [1]\nz.append(2)", ""),
    ("z = 1\nz\nw = 2", ""),  # only a trailing expression is shown
])
def test_trailing_expression_is_shown_like_a_repl(py, collect, code, shown):
    out, res = collect(py, code)
    assert res.ok
    assert out == shown


def test_traceback_points_at_user_lines(py, collect):
    code = "a = 1\nb = 0\nc = a / b\nprint('unreached')\n"
    out, res = collect(py, code)
    assert res.status == "error" and not res.ok
    assert "ZeroDivisionError" in res.error
    assert "line 3" in out and "c = a / b" in out
    assert "unreached" not in out
    for internal in ("_python_driver", "<string>", "run_file", "exec(code"):
        assert internal not in out


def test_traceback_through_functions_defined_in_earlier_blocks(py, collect):
    collect(py, "def inner():\n    raise ValueError('bad value')\n")
    out, res = collect(py, "x = 0\n\ninner()\n")
    assert "ValueError: bad value" in out and res.error == "ValueError: bad value"
    assert "line 3" in out and "inner()" in out
    assert "line 2" in out and "raise ValueError('bad value')" in out
    assert "<string>" not in out and "_python_driver" not in out


def test_traceback_leaves_out_library_frames_and_causes_raised_inside_them(py, collect):
    """A pandas KeyError printed 30 lines of pandas internals and its chained cause: the small
    model read none of it. The block's line, a count, the raising frame and the error stay."""
    out, res = collect(py, "import json\njson.loads('{bad')\n")
    lines = out.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].startswith('  File "<block ') and lines[1].endswith(", line 2, in <module>")
    assert lines[2] == "    json.loads('{bad')"
    assert "frames inside the Python library left out]" in out and "decoder.py" in out
    assert lines[-1].startswith("json.decoder.JSONDecodeError: Expecting property name")
    assert out.count("Traceback") == 1 and "json/__init__.py" not in out

    out, res = collect(py, "import pandas as pd\npd.DataFrame({'a': [1]})['Month']\n")
    assert out.count("Traceback") == 1 and "direct cause" not in out
    assert "pd.DataFrame({'a': [1]})['Month']" in out and out.rstrip().endswith("KeyError: 'Month'")
    assert "frame" in out and "inside pandas left out]" in out and "_libs" not in out


def test_a_failed_block_names_the_tables_in_memory_with_their_columns(py, collect):
    """The 1.5B model merged a frame with its per-sensor means, then asked for 'temperature'
    (now temperature_x and temperature_y) three times: the columns it has are named."""
    _, res = collect(py, textwrap.dedent("""\
        import pandas as pd
        df = pd.DataFrame({'sensor': ['S1', 'S2', 'S1'], 'temperature': [1.0, None, 3.0]})
        means = df.groupby('sensor')['temperature'].mean().reset_index()
        df = pd.merge(df, means, on='sensor', how='left')
        df['temperature'].fillna(0)
    """))
    assert res.status == "error" and res.notes[1:] == (
        "tables in memory now: df (DataFrame, 3 rows; columns sensor, temperature_x, "
        "temperature_y); means (DataFrame, 2 rows; columns sensor, temperature)",)
    assert res.notes[0] == "df has no column 'temperature'; the closest: temperature_y, temperature_x"
    _, res = collect(py, "g = df.groupby(['sensor', 'temperature_x']).size()\n"
                         "means2 = 1\ng.loc['S9']")
    assert res.notes[0].startswith("tables in memory now: g (Series, 2 values; index sensor, "
                                   "temperature_x); df (DataFrame")  # the failing line's first
    _, res = collect(py, "1 / 0")
    assert res.notes == ()  # not an error tables explain
    _, res = collect(py, "del df, means, g\n{}['x']")
    assert res.notes == ()  # no tables held


def test_a_name_no_line_of_the_block_assigns_is_named_with_the_tables_in_memory(py, collect):
    """Qwen2.5-Coder-1.5B (a real transcript) dropped the line that assigned a table from its
    failed block and wrote that table's to_csv twice more."""
    _, res = collect(py, textwrap.dedent("""\
        import pandas as pd
        budget = pd.DataFrame({'Category': ['Rent'], 'Amount': [1.5]})
        total_amount = budget['Amount'].sum()
        budget_2024.to_csv('never.csv', index=False)
    """))
    assert res.status == "error" and res.notes == (
        "nothing in this code assigns budget_2024",
        "tables in memory now: budget (DataFrame, 1 rows; columns Category, Amount)")
    _, res = collect(py, "print(later)\nlater = 1")
    assert res.notes == ("later is first assigned on line 2, after line 1 uses it",
                         "tables in memory now: budget (DataFrame, 1 rows; columns Category, "
                         "Amount)")
    _, res = collect(py, "del budget\nif False:\n    skipped = 1\nprint(skipped)")
    assert res.notes == ("line 3 assigns skipped, but it had not run when line 4 used it",)


def test_a_comprehension_variable_used_outside_its_comprehension_is_said_so(py, collect):
    """Qwen2.5-Coder-1.5B (a real transcript): its outer comprehension's condition used the
    inner one's `cell`, and it was told line 10 assigns cell but had not run, which sent it
    back to the same line three times."""
    _, res = collect(py, textwrap.dedent("""\
        matrix = [[1, 2], [3, 4]]
        rows = [[float(cell) for cell in row]
                for row in matrix if all(isinstance(cell, (int, float)))]
    """))
    assert res.status == "error" and res.notes == (
        "cell exists only inside the comprehension that loops over it (`for cell in ...`, "
        "line 2); line 3 uses it outside that comprehension, where an outer loop or its "
        "condition cannot see it",)
    _, res = collect(py, "for v in []:\n    pass\nsquares = [v * v for v in range(3)]\nprint(v)")
    assert res.notes == ("line 1 assigns v, but it had not run when line 4 used it",)


def test_a_name_a_module_does_not_have_gets_the_names_like_it(py, collect):
    """A function a library renamed (numpy 2 has no trapz): the names like it."""
    _, res = collect(py, "import numpy as np\nx = np.linspace(0, 3, 5)\narea = np.trapz(x, x)")
    assert res.error == "AttributeError: module 'numpy' has no attribute 'trapz'"
    assert res.notes[0] == "numpy has no trapz; names like it: trapezoid, trace"
    _, res = collect(py, "import os\nos.qwertyuiop")
    assert not any("names like it" in note for note in res.notes)  # nothing like it


def test_a_missing_dict_key_names_the_keys_the_dict_has(py, collect, tmp_path):
    """A script reads row["qty"] where the CSV file says quantity: the note names the key it
    abbreviates."""
    (tmp_path / "stock.csv").write_text("warehouse,quantity\nnorth,3\n")
    _, res = collect(py, textwrap.dedent(f"""\
        import csv
        def total(path):
            with open(path) as handle:
                return sum(int(row["qty"]) for row in csv.DictReader(handle))
        total({str(tmp_path / 'stock.csv')!r})
    """))
    assert res.status == "error" and res.notes[0] == (
        "row has no key 'qty'; its keys: warehouse, quantity; the closest: quantity")
    _, res = collect(py, "row = {'item': 1, 'amount': 2, 'amendment': 3}\nrow['amt']")
    assert res.notes[0] == "row has no key 'amt'; its keys: item, amount, amendment"  # two fit
    _, res = collect(py, "{'a': 1}['b']")
    assert not any("keys" in note for note in res.notes)  # no name on the line: which dict?


def test_text_that_is_not_a_number_gets_how_to_clean_or_skip_it(py, collect, tmp_path):
    """A small model skipped the empty amounts of a CSV file, not the 'N/A' ones, and ran the
    same float(row["amount"]) again; astype(float) fails the same way on '$1,299.00'."""
    (tmp_path / "orders.csv").write_text("item,amount\npen,1.50\nbook,\nlamp,N/A\n")
    _, res = collect(py, textwrap.dedent(f"""\
        import csv
        total = 0.0
        with open({str(tmp_path / 'orders.csv')!r}) as handle:
            for row in csv.DictReader(handle):
                if row["amount"] != "":
                    total += float(row["amount"])
    """))
    assert res.error == "ValueError: could not convert string to float: 'N/A'"
    assert res.notes[0] == (
        "'N/A' is not a number: to skip such values, convert inside try/except ValueError (for "
        "a pandas column: pd.to_numeric(column, errors='coerce') makes them empty)")
    _, res = collect(py, "import pandas as pd\n"
                         "prices = pd.DataFrame({'price': ['$1,299.00', '$5.00']})\n"
                         "prices['price'] = prices['price'].astype(float)")
    assert res.notes[0] == (
        "'$1,299.00' is a value of column 'price' of prices, which holds numbers written with "
        "other characters: remove them (for example .replace('$', '').replace(',', '')) before "
        "converting")
    _, res = collect(py, "orders = pd.DataFrame({'amount': ['1.50', 'N/A', '2', None, '3']})\n"
                         "orders['amount'].astype(float)")
    assert res.notes[0] == (
        "'N/A' is a value of column 'amount' of orders, which is mostly numbers: to skip the "
        "values that are not, pd.to_numeric(column, errors='coerce') makes them empty")
    _, res = collect(py, "float('7.50 EUR')")
    assert res.notes[0] == (
        "'7.50 EUR' holds a number with other characters around it: remove them (for example "
        ".replace(' ', '').replace('E', '').replace('U', '').replace('R', '')) before "
        "converting")  # in no table in memory
    _, res = collect(py, "int('12.5')")
    assert res.notes == ()  # a number, only not a whole one


def test_text_of_a_table_given_to_code_that_needs_numbers_names_its_column(py, collect):
    """Fitting a model on a whole table fails on its first text value, such as a passenger's
    name or a site id: the note names the column it is in and how to leave text columns out,
    not how to convert the name (a small model made the column empty with to_numeric), also
    when the library's message has a line before it."""
    _, res = collect(py, textwrap.dedent("""\
        import numpy as np, pandas as pd
        people = pd.DataFrame({'id': [1, 2], 'name': ['Ball, Mrs. Ada', 'Hoff, Mr. Louis'],
                               'cabin': ['B5', None], 'age': [30.0, 41.0]})
        features = people.drop(columns=['age'])
        np.asarray(features, dtype=float)
    """))
    assert res.error == "ValueError: could not convert string to float: 'Ball, Mrs. Ada'"
    assert res.notes[0] == (
        "'Ball, Mrs. Ada' is a value of column 'name' of features, which holds text, not numbers "
        "(features's text columns: name, cabin): code that needs numbers, such as a model's fit, "
        "takes only the number columns (features.select_dtypes('number')) or text turned into "
        "numbers (pd.get_dummies for categories); converting such a column to numbers would "
        "leave it empty")
    _, res = collect(py, "raise ValueError('Cannot use mean strategy with non-numeric data:\\n'\n"
                         "                 \"could not convert string to float: '(HA2)149'\")\n")
    assert res.notes[0].startswith("'(HA2)149' holds a number with other characters")
    _, res = collect(py, "sites = pd.DataFrame({'site': ['(HA2)149', '(KA3)7', '12'],\n"
                         "                      'sel': [0.5, 1.5, 2.5]})\n"
                         "np.asarray(sites, dtype=float)")
    assert res.notes[0].startswith(
        "'(HA2)149' is a value of column 'site' of sites, which holds text, not numbers (sites's "
        "text columns: site): ")  # ids with digits in them are text, not numbers to clean
    assert "replace" not in res.notes[0]
    _, res = collect(py, "sites = pd.DataFrame({'site': ['1', '2', '3', '(HA2)149'],\n"
                         "                      'sel': [0.5, 1.5, 2.5, 3.5]})\n"
                         "sites['site'].astype(float)")
    assert res.notes[0] == (  # an id among numbers: skipped, its letters are no separators
        "'(HA2)149' is a value of column 'site' of sites, which is mostly numbers: to skip the "
        "values that are not, pd.to_numeric(column, errors='coerce') makes them empty")
    _, res = collect(py, "jobs = pd.DataFrame({'industry': ['Total, all', 'Mining'],\n"
                         "                     'Mar.2019': ['157,538', '703'],\n"
                         "                     'Mar.2020': ['$1,100', None]})\n"
                         "np.asarray(jobs, dtype=float)")
    assert res.notes[0].startswith(
        "'Total, all' is a value of column 'industry' of jobs, which holds text, not numbers "
        "(jobs's text columns: industry, Mar.2019, Mar.2020): ")
    assert res.notes[0].endswith(  # numbers written with separators: convert, not leave out
        "; but Mar.2019, Mar.2020 hold numbers written as text: convert them first, each with "
        "pd.to_numeric(jobs[column].str.replace(',', '').str.replace('$', ''))")


def test_a_made_up_path_points_at_the_working_folder(fresh, collect, tmp_path):
    """A small model listed source_dir = '/home/user/downloads' while the working folder has
    `downloads`, then went on making up paths."""
    (tmp_path / "downloads").mkdir()
    here = os.path.realpath(tmp_path)
    _, res = collect(fresh, "import os\nsource_dir = '/home/user/downloads'\n"
                            "files = os.listdir(source_dir)")
    assert res.error == ("FileNotFoundError: [Errno 2] No such file or directory: "
                         "'/home/user/downloads'")
    assert res.notes == (f"'/home/user/downloads' does not exist; downloads is in the working "
                         f"folder ({here}): use the relative path 'downloads'",)
    _, res = collect(fresh, "open('/home/user/report.csv')")
    assert res.notes == (f"'/home/user/report.csv' is outside the working folder ({here}), "
                         f"where the task's files are",)
    _, res = collect(fresh, "open('downlods/report.csv')")
    assert res.notes == ()  # a typo in a relative path: the error says it all


def test_traceback_keeps_causes_from_the_users_code_and_collapses_recursion(py, collect):
    out, _ = collect(py, "try:\n    1/0\nexcept ZeroDivisionError:\n    undefined_name\n")
    assert "ZeroDivisionError: division by zero" in out
    assert "During handling of the above exception, another exception occurred" in out
    out, _ = collect(py, "raise ValueError('x') from KeyError('y')\n")
    assert out.startswith("KeyError: 'y'\n\nThe above exception was the direct cause")
    out, _ = collect(py, "def rec(n):\n    return rec(n + 1)\nrec(0)\n")
    assert "[Previous line repeated" in out and len(out.splitlines()) < 20


def test_traceback_in_async_code(py, collect):
    out, res = collect(py, "import asyncio\nawait asyncio.sleep(0)\nraise KeyError('k')\n")
    assert res.status == "error" and "KeyError" in res.error
    assert "line 3" in out and "<string>" not in out and "asyncio/base_events" not in out


def test_syntax_error_reported_with_line_and_state_kept(py, collect):
    collect(py, "survivor = 'yes'")
    out, res = collect(py, "ok = 1\nif True\n    pass\n")
    assert res.status == "error"
    assert "SyntaxError" in res.error and "line 2" in res.error
    assert "SyntaxError" in out and "line 2" in out and "if True" in out
    assert collect(py, "print(survivor)")[0] == "yes\n"


def test_exceptions_do_not_break_the_runner(py, collect):
    out, res = collect(py, "raise RuntimeError('boom')")
    assert res.status == "error" and "RuntimeError: boom" in out
    out, res = collect(py, "print('fine')")
    assert (out, res.status) == ("fine\n", "ok")


# -- end-of-output marker ---------------------------------------------------------

class SpyPython(PythonRunner):
    """Records the token of each run's marker."""

    def run_command(self, token, path):
        self.tokens = [*getattr(self, "tokens", []), token]
        return super().run_command(token, path)


def test_each_run_has_a_fresh_marker_and_old_markers_are_just_output(make_runner, collect):
    runner = make_runner(SpyPython)
    collect(runner, "print('one')")
    old = runner.tokens[0]
    spoof = f'__INTERP_{old}__{{"status": "error", "error": "spoofed"}}'
    out, res = collect(runner, f"print({spoof!r})\nprint('still running')")
    assert runner.tokens[0] != runner.tokens[1]
    assert res.status == "ok" and res.error is None
    assert out == spoof + "\nstill running\n"


@pytest.mark.parametrize("text", [
    ">>> ", "... ", "$ ", "__END__", "__INTERP_", "__INTERP_abc", "_", "__",
    "__INTERP_0123456789abcdef01234567__{}\n", '__INTERP_deadbeef__{"status": "died"}\n',
    ">>> \n... \n$ \n__END__\n",
])
def test_prompt_and_marker_lookalikes_are_output(py, collect, text):
    out, res = collect(py, f"import sys\nsys.stdout.write({text!r})\nsys.stdout.flush()\nx_after = 1")
    assert res.status == "ok"
    assert out == text
    assert collect(py, "print(x_after)")[0] == "1\n"


def test_random_marker_lines_do_not_end_the_run(py, collect):
    code = block("""
        import secrets
        for _ in range(3):
            print('__INTERP_' + secrets.token_hex(12) + '__{}')
        print('__INTERP_', end='', flush=True)
        print('tail')
    """)
    out, res = collect(py, code)
    assert res.ok
    lines = out.splitlines()
    assert len(lines) == 4 and all(line.startswith("__INTERP_") for line in lines[:3])
    assert lines[3] == "__INTERP_tail"


# -- stdin ------------------------------------------------------------------------

def test_input_raises_eof_error(py, collect):
    out, res = collect(py, "name = input('name? ')")
    assert res.status == "error" and "EOFError" in res.error
    assert "EOFError" in out


def test_stdin_read_returns_empty(py, collect):
    out, res = collect(py, "import sys\nprint(repr(sys.stdin.read()), repr(sys.stdin.readline()))")
    assert (out, res.status) == ("'' ''\n", "ok")


def test_subprocess_reading_stdin_finishes(py, collect):
    code = "import subprocess\nr = subprocess.run(['cat'])\nprint('cat exit', r.returncode)"
    out, res = collect(py, code)
    assert (out, res.status) == ("cat exit 0\n", "ok")


# -- interrupt and timeout --------------------------------------------------------

def test_interrupt_from_another_thread_stops_sleep(py, collect, guard):
    collect(py, "before_interrupt = 'kept'")
    timers = []
    seen = []
    with guard():
        for ev in py.run("import time\nprint('sleeping', flush=True)\ntime.sleep(100)\nprint('not reached')"):
            seen.append(ev)
            if isinstance(ev, Output) and "sleeping" in ev.text and not timers:
                timers.append(threading.Timer(0.2, py.interrupt))
                timers[0].start()
    res = seen[-1]
    text = "".join(e.text for e in seen[:-1])
    assert res.status == "interrupted" and res.interrupted
    assert not (res.died or res.restarted or res.timed_out)
    assert "KeyboardInterrupt" in text and "not reached" not in text
    out, res = collect(py, "print('after')")
    assert (out, res.status) == ("after\n", "ok")
    assert collect(py, "print(before_interrupt)")[0] == "kept\n"


def test_interrupt_when_idle_is_harmless(py, collect):
    py.interrupt()
    assert collect(py, "print('idle ok')")[0] == "idle ok\n"


def test_per_run_timeout_keeps_state(py, collect):
    collect(py, "loops_survivor = 7")
    out, res = collect(py, "while True:\n    pass", timeout=0.5)
    assert res.status == "timeout" and res.timed_out
    assert not (res.restarted or res.died)
    assert "KeyboardInterrupt" in out
    out, res = collect(py, "print(loops_survivor)")
    assert (out, res.status) == ("7\n", "ok")


def test_config_timeout(make_runner, collect):
    runner = make_runner(PythonRunner, timeout=0.5)
    collect(runner, "v = 'still here'")
    out, res = collect(runner, "import time\nwhile True:\n    time.sleep(0.01)")
    assert res.status == "timeout" and res.timed_out and not res.restarted
    assert collect(runner, "print(v)")[0] == "still here\n"
    # a per-run value overrides the configured one
    out, res = collect(runner, "import time\ntime.sleep(1)\nprint('slept')", timeout=30)
    assert (out, res.status) == ("slept\n", "ok")


def test_code_ignoring_sigint_is_killed_and_runner_restarts(fresh, collect):
    collect(fresh, "lost = True")
    code = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(100)"
    out, res = collect(fresh, code, timeout=0.5)
    assert res.status == "timeout" and res.timed_out
    assert res.restarted and res.state_lost
    assert res.notes and "killed" in res.notes[0]
    assert "restarted" in res.summary()
    out, res = collect(fresh, "print('lost' in globals())")
    assert (out, res.status) == ("False\n", "ok")


def test_interrupt_ignored_without_timeout_kills_after_grace(fresh, collect, guard):
    seen = []
    code = ("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
            "print('armed', flush=True)\ntime.sleep(100)")
    with guard():
        for ev in fresh.run(code):
            seen.append(ev)
            if isinstance(ev, Output) and "armed" in ev.text:
                threading.Timer(0.1, fresh.interrupt).start()
    res = seen[-1]
    assert res.interrupted and res.restarted and not res.timed_out
    assert collect(fresh, "print(2 + 2)")[0] == "4\n"


@pytest.mark.parametrize("popen_extra", ["", ", preexec_fn=os.setpgrp"], ids=["same-group", "own-group"])
def test_no_orphan_survives_a_kill(fresh, collect, pid_gone, popen_extra):
    code = block(f"""
        import os, signal, subprocess, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        child = subprocess.Popen(['sleep', '1000']{popen_extra})
        print(child.pid, flush=True)
        time.sleep(100)
    """)
    out, res = collect(fresh, code, timeout=0.5)
    pid = int(out.split()[0])
    assert res.status == "timeout" and res.restarted
    assert pid_gone(pid), f"background process {pid} survived"
    assert collect(fresh, "print('next')")[0] == "next\n"


# -- death ------------------------------------------------------------------------

@pytest.mark.parametrize("code, exit_code, signal_name", [
    ("import os\nos._exit(3)", 3, None),
    ("import os\nos._exit(0)", 0, None),
    ("import ctypes\nctypes.string_at(0)", None, "SIGSEGV"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", None, "SIGKILL"),
])
def test_death_is_reported_and_runner_restarts(fresh, collect, code, exit_code, signal_name):
    collect(fresh, "doomed = 1")
    out, res = collect(fresh, code)
    assert res.status == "died" and res.died and res.restarted and res.state_lost
    assert res.exit_code == exit_code
    assert res.signal == signal_name
    assert not res.ok
    out, res = collect(fresh, "print('doomed' in globals(), 6 * 7)")
    assert (out, res.status) == ("False 42\n", "ok")


# -- large and strange output -------------------------------------------------------

def test_hundred_megabytes_of_output_is_bounded_in_memory(fresh, guard, collect):
    code = "import sys\nb = 'x' * 1023 + '\\n'\nfor _ in range(100):\n    sys.stdout.write(b * 1024)\n"
    total = 10 * 1024 * 1024 * 10
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    streamed = 0
    with guard(300):
        for ev in fresh.run(code):
            if isinstance(ev, Output):
                streamed += len(ev.text)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    res = ev
    assert isinstance(res, Result) and res.ok
    assert streamed == total == res.output.total_chars
    assert grown_kb < 100 * 1024, f"test process grew by {grown_kb} kB"
    captured = res.output
    assert captured.truncated and captured.omitted_chars == total - len(captured.head) - len(captured.tail)
    model = captured.for_model()
    assert len(model) < 20_000
    assert model.startswith("x" * 1023 + "\n") and model.endswith("x" * 1023 + "\n")
    assert f"{captured.omitted_chars} characters" in model and captured.spool_path in model
    assert os.path.getsize(captured.spool_path) == total
    with open(captured.spool_path, "rb") as fh:
        fh.seek(total - 1024)
        assert fh.read() == b"x" * 1023 + b"\n"
    assert collect(fresh, "print('after big')")[0] == "after big\n"


def test_crlf_is_normalised(py, collect):
    out, res = collect(py, "import sys\nsys.stdout.write('a\\r\\nb\\r\\n')\n_ = sys.stdout.write('c\\r')")
    assert res.ok
    assert out == "a\nb\nc\r"
    assert res.output.for_model() == "a\nb\nc"


def test_invalid_utf8_nul_ansi_and_osc_never_crash(py, collect):
    code = block(r"""
        import sys
        sys.stdout.buffer.write(b'\xff\xfe bad \xc3')
        sys.stdout.buffer.write(b'\n nul:\x00: \x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b]2;t2\x1b\\ done\n')
        sys.stdout.flush()
    """)
    out, res = collect(py, code)
    assert res.ok
    assert "\ufffd" in out and " bad " in out and "\x00" in out and "\x1b[31m" in out
    model = res.output.for_model()
    assert "\x1b" not in model and "\x00" not in model and "\x07" not in model
    assert "title" not in model and "t2" not in model
    assert "red" in model and "done" in model and "nul::" in model
    assert collect(py, "print('still fine')")[0] == "still fine\n"


def test_output_without_trailing_newline(py, collect):
    out, res = collect(py, "print('no newline', end='')")
    assert (out, res.status) == ("no newline", "ok")


def test_stderr_is_captured(py, collect):
    out, res = collect(py, "import sys\nprint('to stderr', file=sys.stderr)")
    assert out == "to stderr\n" and res.ok


# -- environment ------------------------------------------------------------------------

def test_environment_and_cwd(make_runner, collect, tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_TEST_FROM_OS", "os-value")
    monkeypatch.setenv("INTERP_TEST_OVERRIDDEN", "os")
    monkeypatch.delenv("MPLBACKEND", raising=False)
    (tmp_path / "localmod.py").write_text("VALUE = 'imported from cwd'\n")
    runner = make_runner(PythonRunner, cwd=str(tmp_path),
                         env={"INTERP_TEST_FROM_CONFIG": "cfg", "INTERP_TEST_OVERRIDDEN": "config"})
    code = block("""
        import os
        names = ['INTERP_TEST_FROM_OS', 'INTERP_TEST_FROM_CONFIG', 'INTERP_TEST_OVERRIDDEN',
                 'NO_COLOR', 'PAGER', 'PYTHON_BASIC_REPL', 'MPLBACKEND']
        for n in names:
            print(n, os.environ.get(n))
        print('cwd', os.getcwd())
        import localmod
        print(localmod.VALUE)
    """)
    out, res = collect(runner, code)
    assert res.ok, out
    assert out.splitlines() == [
        "INTERP_TEST_FROM_OS os-value",
        "INTERP_TEST_FROM_CONFIG cfg",
        "INTERP_TEST_OVERRIDDEN config",
        "NO_COLOR 1",
        "PAGER cat",
        "PYTHON_BASIC_REPL 1",
        "MPLBACKEND Agg",
        f"cwd {os.path.realpath(tmp_path)}",
        "imported from cwd",
    ]


def _real_python() -> str:
    found = shutil.which("python3")
    assert found, "python3 must be on PATH"
    return subprocess.run([found, "-c", "import sys; print(sys.executable)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def _wrapper(directory, marker: str) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "python3"
    path.write_text(f'#!/bin/sh\nexport INTERP_WRAPPER={marker}\nexec {_real_python()} "$@"\n')
    path.chmod(0o755)
    return str(path)


def test_interps_own_python_is_used_not_python3_on_path(make_runner, collect, tmp_path,
                                                         monkeypatch):
    _wrapper(tmp_path / "bin", "from-path")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    runner = make_runner(PythonRunner)
    assert runner.executable() == sys.executable
    out, res = collect(runner, "import os, sys\nprint(os.environ.get('INTERP_WRAPPER'), sys.executable)")
    assert (out, res.status) == (f"None {sys.executable}\n", "ok")


def test_active_virtualenv_python_is_used(make_runner, collect, tmp_path, monkeypatch):
    fake = _wrapper(tmp_path / "venv" / "bin", "from-venv")
    os.rename(fake, tmp_path / "venv" / "bin" / "python")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))
    runner = make_runner(PythonRunner)
    assert runner.executable() == str(tmp_path / "venv" / "bin" / "python")
    out, res = collect(runner, "import os\nprint(os.environ.get('INTERP_WRAPPER'))")
    assert (out, res.status) == ("from-venv\n", "ok")


def test_configured_python_wins_over_the_virtualenv(make_runner, collect, tmp_path, monkeypatch):
    venv = _wrapper(tmp_path / "venv" / "bin", "from-venv")
    os.rename(venv, tmp_path / "venv" / "bin" / "python")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))
    fake = _wrapper(tmp_path / "custom", "from-config")
    runner = make_runner(PythonRunner, python=fake)
    out, res = collect(runner, "import os\nprint(os.environ.get('INTERP_WRAPPER'))")
    assert (out, res.status) == ("from-config\n", "ok")


def test_a_virtualenv_without_python_is_passed_over(make_runner, tmp_path, monkeypatch):
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "not-a-venv"))
    assert make_runner(PythonRunner, start=False).executable() == sys.executable


def test_configured_python_overrides_path(make_runner, collect, tmp_path):
    fake = _wrapper(tmp_path / "custom", "from-config")
    runner = make_runner(PythonRunner, python=fake)
    out, res = collect(runner, "import os\nprint(os.environ.get('INTERP_WRAPPER'))")
    assert (out, res.status) == ("from-config\n", "ok")


def test_missing_python_is_a_start_error(make_runner, tmp_path):
    runner = make_runner(PythonRunner, start=False, python=str(tmp_path / "no-such-python"))
    with pytest.raises(RunnerStartError):
        runner.start()


def test_python_that_exits_at_once_is_a_start_error(make_runner, tmp_path):
    broken = tmp_path / "python3"
    broken.write_text("#!/bin/sh\necho 'this python is broken' >&2\nexit 2\n")
    broken.chmod(0o755)
    runner = make_runner(PythonRunner, start=False, python=str(broken))
    with pytest.raises(RunnerStartError, match="broken"):
        runner.start()


# -- the driver's compiled form is kept ---------------------------------------------------------
def test_driver_runs_from_its_cached_file_compiled_once(make_runner, collect, tmp_path,
                                                       monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # the user's choice for their own tree
    runner = make_runner(PythonRunner, cwd=str(tmp_path))
    folder = tmp_path / "cache" / "interp" / "python-driver"
    (package,) = folder.glob("*/_interp_driver")
    assert runner.argv()[-1] == str(package.parent)
    out, res = collect(runner, "import sys; print(sys.argv, repr(sys.path[0]), sys.dont_write_bytecode)")
    assert out == "[''] '' True\n" and res.ok  # the block sees what `python3 -c` would give it
    assert list((package / "__pycache__").glob("main.*.pyc"))  # compiled, kept for the next start
    assert sorted(p.name for p in package.parent.iterdir()) == ["_interp_driver"]
    out, res = collect(runner, "1/0")
    assert 'File "<block 2>", line 1' in out and "driver" not in out


def test_driver_without_a_writable_cache_runs_from_its_source(make_runner, collect, tmp_path,
                                                              monkeypatch):
    (tmp_path / "cache").write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runner = make_runner(PythonRunner, cwd=str(tmp_path))
    assert runner.argv()[2] == "-c" and "def main" in runner.argv()[3]  # made from its sources
    assert collect(runner, "print(6 * 7)")[0] == "42\n"


def test_modules_of_the_working_folder_named_like_the_drivers_import_as_the_users(
        make_runner, collect, tmp_path):
    for name in ("main", "state", "hints", "tables"):
        (tmp_path / f"{name}.py").write_text(f"WHO = 'the user\\'s {name}'\n")
    runner = make_runner(PythonRunner, cwd=str(tmp_path))
    out, res = collect(runner, "import main, state, hints, tables\n"
                               "print(main.WHO, state.WHO, hints.WHO, tables.WHO, sep='; ')")
    assert res.ok and out == "the user's main; the user's state; the user's hints; the user's tables\n"


def test_a_syntax_error_inside_an_f_string_says_to_work_the_value_out_first(py, collect):
    """Conditions written inside an f-string's braces, a brace too many: the note says to
    compute the value on its own line; other syntax errors get no such note."""
    code = "r = 0.7\nprint(f\"@kind[{r > 0.5 and 'linear'} or 'none'}]\")\n"
    _, res = collect(py, code)
    assert res.status == "error" and "SyntaxError: f-string" in res.error
    assert res.notes[0].startswith("the error is inside an f-string's braces: compute that "
                                   "value on a line of its own")
    _, res = collect(py, "print((1, 2)\n")
    assert res.status == "error" and not any("f-string" in note for note in res.notes)


def test_a_column_name_found_in_a_row_below_the_header_names_that_row(py, collect, tmp_path):
    """A sheet exported with a title line above its header reads as one named column and
    'Unnamed: N' ones; a KeyError on a real column name says which row holds the names and
    the header= that reads them from there."""
    (tmp_path / "team.csv").write_text("NORTH TEAM,,\nPlayer,Wins,Losses\nAda,3,1\nBo,,2\n")
    path = str(tmp_path / "team.csv")
    _, res = collect(py, f"import pandas as pd\ndf = pd.read_csv({path!r})\ndf['Wins'].mean()\n")
    assert res.status == "error" and res.notes[0] == (
        "df has no column 'Wins', but its row 0 holds it (Player, Wins, Losses): the file's "
        "header is on a later line; header=1 in the read_csv or read_excel call takes the "
        "column names from there")
    _, res = collect(py, f"df = pd.read_csv({path!r}, header=1)\nprint(df['Wins'].sum())\n")
    assert res.ok
    _, res = collect(py, f"raw = pd.read_csv({path!r}, header=None)\nraw['Wins']\n")
    assert "its row 1 holds it" in res.notes[0] and "header=1 in" in res.notes[0]
    _, res = collect(py, "df['Draws']\n")  # in no row either: no note of its own
    assert not res.notes[0].startswith("df has no column")


def test_a_column_name_that_is_a_value_of_a_text_column_says_the_table_is_long(
        py, collect, tmp_path):
    """A table in long form (a row per reading, its kind in one column, its value in
    another): a KeyError on a kind, taken for a column, names the column that holds it and
    how to take its rows."""
    rows = ["station,kind,value"] + [f"s{i},{k},{i}" for i in range(4) for k in ("HIGH", "LOW")]
    (tmp_path / "readings.csv").write_text("\n".join(rows) + "\n")
    path = str(tmp_path / "readings.csv")
    _, res = collect(py, f"import pandas as pd\ndf = pd.read_csv({path!r})\ndf['LOW'].median()\n")
    assert res.status == "error" and res.notes[0] == (
        "df has no column 'LOW', but 'LOW' is a value of its column 'kind': the table has a row "
        "per 'kind', so take the rows df[df['kind'] == 'LOW'] and the column that holds their "
        "values")
    _, res = collect(py, "print(df[df['kind'] == 'LOW']['value'].median())\n")
    assert res.ok and res.output.text.strip() == "1.5"
    _, res = collect(py, "df['MEDIUM']\n")  # a value of no column: no note of its own
    assert not res.notes or not res.notes[0].startswith("df has no column")


def test_a_column_with_spaces_around_its_name_is_shown_quoted(py, collect, tmp_path):
    """A header written `time, speed` makes the column ' speed'; a KeyError on 'speed' (from
    `df['speed']` or from a list pandas raises, as `dropna(subset=[...])` does) names the
    column quoted, so the space shows, and how to strip the names."""
    (tmp_path / "log.csv").write_text("time, speed, dir\n1,2.5,3\n4,,6\n")
    for line in ("df.dropna(subset=['speed'])", "df[['speed', 'dir']]", "df['speed'].mean()"):
        _, res = collect(py, f"import pandas as pd\ndf = pd.read_csv({str(tmp_path / 'log.csv')!r})\n{line}\n")
        assert res.status == "error" and res.notes[0] == (
            "df has no column 'speed'; the closest: ' speed' (spaces around the name: "
            "df.columns = df.columns.str.strip() removes them)"), line
        assert res.notes[1].startswith(  # the runner is shared: other tests' tables follow
            "tables in memory now: df (DataFrame, 2 rows; columns time, ' speed', ' dir')"), line


def test_a_column_whose_name_holds_the_missing_one_in_words_is_named(py, collect, tmp_path):
    """A header qualifies a label ("Health (Life Expectancy)"); the model asks for the label
    alone: the note names the column that holds it."""
    (tmp_path / "countries.csv").write_text(
        "Country,Economy (GDP per Capita),Health (Life Expectancy)\nA,1.2,0.9\nB,0.8,0.7\n")
    _, res = collect(py, f"import pandas as pd\ndf = pd.read_csv({str(tmp_path / 'countries.csv')!r})\n"
                         "y = df['Life Expectancy']\n")
    assert res.status == "error" and res.notes[0] == (
        "df has no column 'Life Expectancy'; the closest: Health (Life Expectancy)")


def test_a_keyword_a_function_does_not_take_names_its_parameters_and_names_like_it(
        py, collect, tmp_path):
    """A library dropped a keyword (and moved what it did to a function of a longer name), or
    renamed it: the note names the parameters the called function has, the closest of them,
    and the names beside it that hold its name."""
    (tmp_path / "errors_lib.py").write_text(
        "def mean_error(a, b, weight=None):\n    return 0\n\n"
        "def root_mean_error(a, b):\n    return 0\n\n"
        "class Encoder:\n    def __init__(self, sparse_output=True, drop=None):\n        pass\n")
    setup = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport errors_lib\n"
    _, res = collect(py, setup + "e = errors_lib.mean_error([1], [2],\n    squared=False)\n")
    assert res.error == "TypeError: mean_error() got an unexpected keyword argument 'squared'"
    assert res.notes[0] == ("errors_lib.mean_error takes no keyword 'squared'; names like it: "
                            "root_mean_error; its parameters: a, b, weight")
    _, res = collect(py, setup + "from errors_lib import Encoder\nEncoder(sparse=False)\n")
    assert res.notes[0] == ("Encoder takes no keyword 'sparse'; the closest: sparse_output; its "
                            "parameters: sparse_output, drop")
    _, res = collect(py, "import pandas as pd\ndf = pd.DataFrame({'x': [1, 2, 3.5]})\n"
                         "df['x'].skew(fisher=False)\n")
    assert res.notes[0].startswith("df['x'].skew takes no keyword 'fisher'; its parameters: "
                                   "axis, skipna, numeric_only")
    _, res = collect(py, "len([], key=1)\n")
    assert res.error == "TypeError: len() takes no keyword arguments"
    assert not any("takes no keyword '" in note for note in res.notes)  # says it all itself


def test_numbers_a_block_assigned_that_came_out_nan_are_named(py, collect):
    """numpy on a column with a missing value, or a statistic of an empty selection, gives NaN
    without an error; a comparison with it is False. A block that ran names such numbers it
    assigned, scalars and the fields of a test's result tuple alike; numbers that are not NaN,
    and names the block did not assign, are not named."""
    _, res = collect(py, "import collections\nimport numpy as np\nimport pandas as pd\n"
                         "df = pd.DataFrame({'x': [1.0, None, 3.0]})\n"
                         "skipped = df['x'].mean()\nmean_x = np.mean(df['x'].to_numpy())\n"
                         "Test = collections.namedtuple('Test', 'statistic pvalue')\n"
                         "result = Test(2.5, float('nan'))\n"
                         "empty = df[df['x'] > 10]['x'].mean()\n"
                         "print('significant' if result.pvalue < 0.05 else 'not significant')\n")
    assert res.status == "ok" and res.notes == (
        "mean_x, result, empty hold NaN: numpy and scipy give NaN when their input has missing "
        "values (pandas' own methods skip them), and so does a statistic of an empty selection; "
        "a comparison such as < or > with NaN is False",)
    _, res = collect(py, "total = skipped * 2\nprint(mean_x)\n")
    assert res.status == "ok" and res.notes == ()  # mean_x was assigned by an earlier block
    _, res = collect(py, "flag = True\ncount = 0\nlabel = 'nan'\n")
    assert res.notes == ()
    _, res = collect(py, "import numpy as np\nlow = np.float32('nan')\nfine = np.float32(1)\n")
    assert res.notes[0].startswith("low holds NaN: ")  # numpy's other float types too

