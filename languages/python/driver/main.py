"""Runs inside the user's python: reads commands on fd 3, runs code files, prints end markers.

Kept compatible with Python 3.8 because it runs on whatever python3 the user has.
"""

import ast
import builtins
import json
import linecache
import os
import select
import signal
import sys
import traceback
import types

from .display import Displays
from .habits import Habits, UsageError
from .calls import keyword_note
from .hints import attribute_note, key_note, number_note, syntax_note
from .paths import path_note
from .rewrite import CONSOLE_NOTE, console_paste, rewrite
from .state import name_note, tables_note
from .values import nan_note

CO_COROUTINE = 0x80
PREFIX = "__INTERP_"


def read_exactly(size):
    """`size` bytes from the command pipe on fd 3; the process ends if the pipe is closed."""
    data = b""
    while len(data) < size:
        chunk = os.read(3, size - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


def read_command():
    """(one command from the pipe on fd 3, True if Ctrl-C came while it was read). A command
    is its length (6 digits), then exactly that many bytes, so the commands behind it (the
    run's sync marker) stay in the pipe, out of reach of the block's frames. Ctrl-C is held
    off from the command's arrival until it is whole; one that comes while no command is on
    its way is a late one, meant for a block that has ended (main() drops it)."""
    select.select([3], [], [])
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
    try:
        line = read_exactly(int(read_exactly(6))).decode("utf-8", "replace").rstrip("\n")
    finally:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
        except KeyboardInterrupt:
            interrupted = True
        else:
            interrupted = False
    return line, interrupted


def print_error(exc, filename):
    """Print a traceback that starts at the user's own code and leaves out the frames inside
    libraries (counted on one line, the one that raised kept), and causes raised only there."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    chain, seen, error = [(exc, tb, None)], {id(exc)}, exc
    while True:
        direct = error.__cause__ is not None
        cause = error.__cause__ if direct else (
            None if error.__suppress_context__ else error.__context__)
        if cause is None or id(cause) in seen:
            break
        seen.add(id(cause))
        frames = traceback.extract_tb(cause.__traceback__)
        if frames and not any(own_frame(frame.filename) for frame in frames):
            break  # raised and handled inside a library (pandas' KeyError from get_loc)
        chain.append((cause, cause.__traceback__, direct))
        error = cause
    parts = []
    for position in range(len(chain) - 1, -1, -1):
        error, error_tb, _ = chain[position]
        if error_tb is not None:
            parts.append("Traceback (most recent call last):\n")
            parts += compact_frames(traceback.extract_tb(error_tb))
        parts += traceback.format_exception_only(type(error), error)
        if position:
            parts.append(CAUSED if chain[position][2] else DURING)
    sys.stderr.write("".join(parts))


CAUSED = "\nThe above exception was the direct cause of the following exception:\n\n"
DURING = "\nDuring handling of the above exception, another exception occurred:\n\n"


def own_frame(name):
    """Whether a frame runs the user's code: a block, or a file of the working folder."""
    if name.startswith("<"):
        return name.startswith(("<block", "<stdin>", "<string>", "<ipython"))
    try:
        path = os.path.abspath(name)
        return (path.startswith(os.getcwd() + os.sep) and "site-packages" not in path
                and os.path.isfile(path))
    except OSError:
        return False


def compact_frames(frames):
    """The formatted frames: the user's as Python prints them (repeats collapsed), each run of
    library frames as a line that counts them, and the last of the run."""
    out, run, own = [], [], None
    for frame in list(frames) + [None]:
        mine = frame is not None and own_frame(frame.filename)
        if run and (frame is None or mine != own):
            if not own and len(run) > 1:
                out.append("  [%d frame%s inside %s left out]\n" % (
                    len(run) - 1, "s" * (len(run) > 2), library_name(run[-1].filename)))
            out += traceback.format_list(run if own else run[-1:])
            run = []
        if frame is not None:
            run.append(frame)
            own = mine
    return out


def library_name(path):
    """The package a library file belongs to: pandas for .../site-packages/pandas/core/x.py."""
    parts = path.replace(os.sep, "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts and parts.index(marker) + 1 < len(parts):
            return parts[parts.index(marker) + 1].split(".")[0]
    return "the Python library" if os.path.isabs(path) else parts[0]


class Quitter(object):
    """exit() and quit(): end the block (sys.exit), without closing standard input."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "Use %s() or %s(code) to end this block" % (self.name, self.name)

    def __call__(self, code=None):
        raise SystemExit(code)


def ended(exc):
    """The status of a block that raised SystemExit: the interpreter carries on."""
    code = exc.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    shown = "" if exc.code is None else repr(exc.code)[:200]
    note = ("the block ended itself with sys.exit(%s); only the block ended: the Python process "
            "and its variables were kept" % shown)
    if code == 0:
        return {"status": "ok", "exit_code": 0, "notes": [note]}
    return {"status": "error", "exit_code": code, "notes": [note],
            "error": "SystemExit: %s" % shown}


def summary(exc):
    """The one-line form of an exception (the driver's own without its module's name)."""
    text = traceback.format_exception_only(type(exc), exc)[-1].strip()
    if type(exc).__module__.startswith(__package__ + "."):
        text = text[len(type(exc).__module__) + 1:]
    if isinstance(exc, SyntaxError) and exc.lineno:
        text += " (line %d)" % exc.lineno
    return text[:500]


class Driver:
    """Holds the user's namespace and event loop between blocks."""

    def __init__(self):
        module = types.ModuleType("__main__")
        module.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = module
        self.namespace = module.__dict__
        self.loop = None
        self.count = 0
        self.displays = Displays()  # from display.py, whose source comes first
        self.displays.install()
        Habits(self.displays).install()  # from habits.py, whose source comes first
        builtins.exit, builtins.quit = Quitter("exit"), Quitter("quit")

    def execute(self, code):
        """Run a compiled code object, driving it on an event loop if it awaits."""
        if not code.co_flags & CO_COROUTINE:
            exec(code, self.namespace)
            return
        import asyncio
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
        task = self.loop.create_task(eval(code, self.namespace))
        try:
            self.loop.run_until_complete(task)
        except KeyboardInterrupt:
            task.cancel()
            self.loop.run_until_complete(asyncio.wait([task], timeout=0.5))
            raise

    def run_file(self, path, number):
        """Run block `number`; its figures and rich trailing value go into the status."""
        self.count = number
        self.displays.begin(number)
        return self.displays.finish(self.run_block(path), json.dumps)

    def parse(self, path, filename):
        """(syntax tree, notes); a block that is not Python but a console paste or IPython
        lines is rewritten (see habits.py); else the first SyntaxError is raised."""
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            source = handle.read()
        notes = []
        pasted = console_paste(source)  # `In [1]: x = 1` parses (an annotation) but is a paste
        if pasted is not None:
            source, notes = pasted, [CONSOLE_NOTE]
        try:
            tree = ast.parse(source, filename)
        except SyntaxError as error:
            changed, more = rewrite(source)
            notes = notes + more
            if not more:
                raise
            try:
                tree = ast.parse(changed, filename)
            except SyntaxError:
                raise error from None
            source = changed
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        return tree, notes

    def run_block(self, path):
        """Run one block's code; the value of a trailing expression is displayed."""
        filename = "<block %d>" % self.count
        linecache.cache.pop(filename, None)
        flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
        notes = []
        try:
            tree, notes = self.parse(path, filename)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Interactive(body=[tree.body.pop()])
            self.execute(compile(tree, filename, "exec", flags, True))
            if last is not None:
                with self.displays.hook():
                    self.execute(compile(last, filename, "single", flags, True))
        except KeyboardInterrupt:
            print("KeyboardInterrupt", file=sys.stderr)
            return {"status": "interrupted", "notes": notes}
        except SystemExit as exc:
            status = ended(exc)
            return dict(status, notes=notes + status["notes"])
        except BaseException as exc:  # the user's code may raise anything
            if isinstance(exc, UsageError):  # a magic's own message says it all
                print(summary(exc), file=sys.stderr)
            else:
                print_error(exc, filename)
            if isinstance(exc, MemoryError):  # the runner restarts: a limit was hit
                return {"status": "error", "error": summary(exc), "limit": "memory"}
            # from state.py, hints.py, calls.py and paths.py, whose sources come first
            found = (name_note(exc), key_note(self.namespace, exc), attribute_note(exc),
                     keyword_note(self.namespace, exc), path_note(exc),
                     number_note(exc, self.namespace), syntax_note(exc),
                     tables_note(self.namespace, exc))
            return {"status": "error", "error": summary(exc),
                    "notes": notes + [note for note in found if note]}
        found = nan_note(self.namespace, tree)  # from values.py, whose source comes first
        return {"status": "ok", "notes": notes + ([found] if found else [])}


def flush():
    """Flush the user's streams, which the code may have replaced or closed."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:  # a replaced stream may not support flush
            pass


def exit_code(exc):
    """The process status a SystemExit asks for."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def report(held, parts, status):
    """Add a command's marker to those held back (a bytearray, changed in place); write them
    all after a sync command. Ctrl-C is held off meanwhile, so a late one can neither tear
    nor repeat the markers (it is raised, if at all, once they are written)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
    try:
        held += ("%s%s__%s\n" % (PREFIX, parts[1], json.dumps(status))).encode()
        if parts[0] != "R":
            os.write(1, held)
            del held[:]
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


def main():
    os.set_inheritable(3, False)
    sys.argv = [""]
    driver = Driver()
    held = bytearray()  # a run's marker, written with the sync marker right behind it: one wake-up
    while True:
        try:
            line, interrupted = read_command()
            parts = line.split(" ", 3)  # R TOKEN BLOCK PATH, or P TOKEN
            status = {"status": "ok"}
            if parts[0] == "R" and len(parts) == 4 and parts[2].isdigit():
                if interrupted:  # the block never started
                    print("KeyboardInterrupt", file=sys.stderr)
                    status = {"status": "interrupted"}
                else:
                    status = driver.run_file(parts[3], int(parts[2]))
            flush()
            report(held, parts, status)
        except KeyboardInterrupt:
            continue
        except SystemExit as exc:
            flush()
            os._exit(exit_code(exc))

