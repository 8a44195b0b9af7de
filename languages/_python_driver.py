"""Runs inside the user's python3: reads commands on fd 3, runs code files, prints end markers.

Kept compatible with Python 3.8 because it runs on whatever python3 the user has.
"""

import ast
import json
import linecache
import os
import sys
import traceback
import types

CO_COROUTINE = 0x80
PREFIX = "__INTERP_"


def read_command(buf):
    """Read one line from fd 3; returns (line, rest)."""
    while b"\n" not in buf:
        chunk = os.read(3, 65536)
        if not chunk:
            os._exit(0)
        buf += chunk
    line, _, rest = buf.partition(b"\n")
    return line.decode("utf-8", "replace"), rest


def print_error(exc, filename):
    """Print a traceback that starts at the user's own code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb)


def summary(exc):
    """The one-line form of an exception."""
    text = traceback.format_exception_only(type(exc), exc)[-1].strip()
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
        self.displays = Displays()  # from _python_display.py, whose source comes first
        self.displays.install()

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

    def run_block(self, path):
        """Run one block's code; the value of a trailing expression is displayed."""
        filename = "<block %d>" % self.count
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            source = handle.read()
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
        try:
            tree = ast.parse(source, filename)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Interactive(body=[tree.body.pop()])
            self.execute(compile(tree, filename, "exec", flags, True))
            if last is not None:
                with self.displays.hook():
                    self.execute(compile(last, filename, "single", flags, True))
        except KeyboardInterrupt:
            print("KeyboardInterrupt", file=sys.stderr)
            return {"status": "interrupted"}
        except SystemExit:
            raise
        except BaseException as exc:  # the user's code may raise anything
            print_error(exc, filename)
            if isinstance(exc, MemoryError):  # the runner restarts: a limit was hit
                return {"status": "error", "error": summary(exc), "limit": "memory"}
            return {"status": "error", "error": summary(exc)}
        return {"status": "ok"}


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


def main():
    os.set_inheritable(3, False)
    sys.argv = [""]
    driver = Driver()
    buf = b""
    while True:
        try:
            line, buf = read_command(buf)
            parts = line.split(" ", 3)  # R TOKEN BLOCK PATH, or P TOKEN
            status = {"status": "ok"}
            if parts[0] == "R" and len(parts) == 4 and parts[2].isdigit():
                status = driver.run_file(parts[3], int(parts[2]))
            flush()
            os.write(1, ("%s%s__%s\n" % (PREFIX, parts[1], json.dumps(status))).encode())
        except KeyboardInterrupt:
            continue
        except SystemExit as exc:
            flush()
            os._exit(exit_code(exc))


main()
