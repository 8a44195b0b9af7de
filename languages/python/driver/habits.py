"""IPython habits for the Python driver: what `!cmd`, `%magic` and `display` do once
`rewrite.py` has turned them into calls.

Runs inside the user's python3, so it stays compatible with Python 3.8.
"""

import builtins
import os
import re
import sys

from .tables import rich_display

# subprocess, shlex, shutil, time, tokenize and io are imported where used: most blocks never
# need them, and the driver's start-up stays short.

EXPAND = re.compile(r"\$\$|\$(\w+)|\{([^{}\n]+)\}")
NO_OPS = ("matplotlib", "load_ext", "reload_ext", "autoreload", "aimport", "config")


class UsageError(Exception):
    """A magic that interp's Python blocks do not support, or bad arguments to one."""


class Habits(object):
    """What `!`, `%` and `display` do in a block."""

    def __init__(self, displays):
        self.displays = displays

    def install(self):
        builtins._interp_habits = self
        builtins.display = self.display

    def namespace(self):
        return sys.modules["__main__"].__dict__

    def expand(self, command):
        """IPython's expansion in shell lines: {expression} and $name from the namespace."""
        names = self.namespace()

        def value(match):
            if match.group() == "$$":
                return "$"
            name, expression = match.groups()
            if name is not None:
                return str(names[name]) if name in names else match.group()
            try:
                return str(eval(expression, names))
            except Exception:  # shell braces such as {a,b} or {1..3}: left alone
                return match.group()

        return EXPAND.sub(value, command)

    def shell(self):
        import shutil
        return shutil.which("bash") or "/bin/sh"

    def system(self, command):
        """`!command`: run it in a shell; its output streams; `_exit_code` gets its status."""
        import subprocess
        flush_all()
        builtins._exit_code = subprocess.call(self.expand(command), shell=True,
                                              executable=self.shell())

    def getoutput(self, command):
        """`x = !command`: the lines it printed."""
        import subprocess
        flush_all()
        done = subprocess.run(self.expand(command), shell=True, executable=self.shell(),
                              stdout=subprocess.PIPE, universal_newlines=True)
        builtins._exit_code = done.returncode
        return done.stdout.splitlines()

    def magic(self, name, args):
        """`%name args`."""
        if name in NO_OPS:
            return None
        handler = getattr(self, "magic_" + name, None)
        if handler is None:
            raise UsageError("%%%s is not available in interp's Python blocks (these are: %s)"
                             % (name, ", ".join(self.supported())))
        return handler(self.expand(args))

    def supported(self):
        names = [n[6:] for n in dir(self) if n.startswith("magic_")] + list(NO_OPS)
        return ["%" + n for n in sorted(names)] + ["%%" + n[5:] for n in dir(self)
                                                   if n.startswith("cell_")]

    def magic_pip(self, args):
        """%pip: pip of the Python that runs the blocks."""
        import shlex
        import subprocess
        flush_all()
        builtins._exit_code = subprocess.call([sys.executable, "-m", "pip"] + shlex.split(args))
        import importlib
        importlib.invalidate_caches()

    def magic_cd(self, args):
        os.chdir(os.path.expanduser(args.strip("'\"") or "~"))
        print(os.getcwd())

    def magic_pwd(self, args):
        return os.getcwd()

    def magic_env(self, args):
        if not args:
            return dict(os.environ)
        match = re.match(r"^(\w+)(?:\s*=\s*|\s+)(.*)$", args)
        if match:
            os.environ[match.group(1)] = match.group(2)
            print("env: %s=%s" % match.groups())
            return None
        return os.environ.get(args)

    def magic_time(self, args):
        import time
        began = time.time()
        try:
            exec(compile(args, "<%time>", "exec"), self.namespace())
        finally:
            print("Wall time: %.3g s" % (time.time() - began))

    def magic_timeit(self, args):
        import timeit
        timer = timeit.Timer(args, globals=self.namespace())
        loops, total = timer.autorange()
        best = min([total] + timer.repeat(repeat=2, number=loops)) / loops
        print("%.3g s per loop (best of 3 runs, %d loops each)" % (best, loops))

    def magic_run(self, args):
        """%run script.py args: run a file as __main__; its names join the namespace."""
        import runpy
        import shlex
        argv = shlex.split(args)
        if not argv:
            raise UsageError("%run needs a file name")
        saved = sys.argv
        sys.argv = argv
        try:
            found = runpy.run_path(argv[0], run_name="__main__")
        finally:
            sys.argv = saved
        self.namespace().update((k, v) for k, v in found.items() if not k.startswith("__"))

    def cell(self, name, args, body):
        """`%%name args` on the first line: the rest of the block is its body."""
        handler = getattr(self, "cell_" + name, None)
        if handler is None:
            raise UsageError("%%%%%s is not available in interp's Python blocks (these are: %s)"
                             % (name, ", ".join(self.supported())))
        return handler(args, body)

    def cell_writefile(self, args, body):
        import shlex
        parts = shlex.split(args)
        append = "-a" in parts or "--append" in parts
        path = next((p for p in parts if not p.startswith("-")), None)
        if path is None:
            raise UsageError("%%writefile needs a file name")
        path = os.path.expanduser(path)
        print("%s %s" % ("Appending to" if append else
                         ("Overwriting" if os.path.exists(path) else "Writing"), path))
        with open(path, "a" if append else "w") as handle:
            handle.write(body + ("" if body.endswith("\n") else "\n"))

    def cell_bash(self, args, body):
        import subprocess
        flush_all()
        builtins._exit_code = subprocess.call([self.shell(), "-c", body])

    cell_sh = cell_bash

    def cell_time(self, args, body):
        self.magic_time(body)

    def cell_capture(self, args, body):
        """%%capture [name]: run the body without showing its output (kept in `name`)."""
        import contextlib
        import io
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            exec(compile(body, "<%%capture>", "exec"), self.namespace())
        if args.split():
            self.namespace()[args.split()[0]] = Captured(out.getvalue(), err.getvalue())

    def display(self, *objects, **options):
        """display(obj): shown like the value of a block's last line."""
        for value in objects:
            shown = None
            try:
                shown = rich_display(value)
            except Exception:  # an odd subclass: its repr instead
                shown = None
            if shown is not None:
                self.displays.add(shown)
            elif self.is_figure(value):
                self.displays.save(value, getattr(value, "number", None))
                sys.modules["matplotlib.pyplot"].close(value)
            else:
                print(repr(value))

    def is_figure(self, value):
        figure = getattr(sys.modules.get("matplotlib.figure"), "Figure", None)
        return isinstance(figure, type) and isinstance(value, figure) and \
            "matplotlib.pyplot" in sys.modules


class Captured(object):
    """What %%capture kept."""

    def __init__(self, stdout, stderr):
        self.stdout, self.stderr = stdout, stderr

    def show(self):
        sys.stdout.write(self.stdout)
        sys.stderr.write(self.stderr)


def flush_all():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a replaced stream may not flush
            pass
