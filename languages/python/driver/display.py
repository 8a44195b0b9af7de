"""Figures and rich values for the Python driver.

Runs inside the user's python3, so it stays compatible with Python 3.8 and never imports
matplotlib, pandas or numpy itself: it only uses them once the user's code has imported them.
Each display is a JSON-ready dict {"kind", "text", "path", "data"} that the driver sends in its
status line; languages.records.Display is the runner-side form. A saved figure's data holds
what it plots (plot_summary, from plots.py); a figure the
code saved itself (savefig) gives a "plot" display with no text, so the model is told nothing
more than before and a reader of the block's record can still see what the file shows.
"""

import builtins
import os
import sys

from .plots import plot_summary, plot_watch_axes
from .tables import cut, rich_display

MAX_DISPLAYS = 100  # displays reported per block; later figures are still saved
MAX_PLOTS = 20  # "plot" displays (figures the code saved itself) per block, not counted above
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"  # interp/core/prompt/png.py's; interp cannot be imported here
SHOW_WARNINGS = (r"(?s).*non-interactive, and thus cannot be shown",
                 r"(?s).*non-GUI backend, so cannot show the figure")


def png_size(path):
    """(width, height) from a PNG file's header, or (None, None)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(24)
    except OSError:
        return None, None
    if len(head) < 24 or not head.startswith(PNG_SIGNATURE):
        return None, None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


class DisplayHook(object):
    """While a trailing expression runs: rich values become displays, others print as usual."""

    def __init__(self, displays):
        self.displays = displays
        self.previous = None

    def __enter__(self):
        self.previous = sys.displayhook
        sys.displayhook = self
        return self

    def __exit__(self, *exc):
        if sys.displayhook is self:
            sys.displayhook = self.previous

    def __call__(self, value):
        shown = None
        if value is not None:
            try:
                shown = rich_display(value)
            except Exception:  # an odd subclass: fall back to its repr
                shown = None
        if shown is None:
            return self.previous(value)
        builtins._ = value
        self.displays.add(shown)
        return None


class PyplotFinder(object):
    """An import hook that patches matplotlib.pyplot right after it is first imported."""

    def __init__(self, displays):
        self.displays = displays
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name != "matplotlib.pyplot" or self.busy:
            return None
        import importlib.util
        self.busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = PatchingLoader(spec.loader, self.displays)
        return spec

    def invalidate_caches(self):
        pass


class PatchingLoader(object):
    """Wraps pyplot's loader; everything but exec_module is the original loader's."""

    def __init__(self, loader, displays):
        self.loader = loader
        self.displays = displays

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        self.displays.patch(module)

    def __getattr__(self, name):
        if name == "loader":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self.loader, name)


class Displays(object):
    """Collects the displays of one block and saves its matplotlib figures as PNG files."""

    def __init__(self, directory=None):
        directory = directory or os.environ.get("INTERP_OUTPUT_DIR") or "interp-output"
        self.directory = os.path.abspath(os.path.expanduser(directory))
        self.items = []
        self.block = 0
        self.figures = 0
        self.omitted = 0
        self.plots = 0
        self.saving = False  # interp itself is saving a figure (not the user's savefig)

    def install(self):
        """Watch for pyplot being imported (it is patched then, never imported here)."""
        sys.meta_path.insert(0, PyplotFinder(self))
        self.patch(sys.modules.get("matplotlib.pyplot"))

    def patch(self, plt):
        """Make pyplot.show save and close the open figures instead of warning or blocking."""
        if plt is None or getattr(getattr(plt, "show", None), "_interp_show", False):
            return
        original = getattr(plt, "show", None)

        def show(*args, **kwargs):
            self.save_figures()

        show._interp_show = True
        show.__wrapped__ = original
        show.__doc__ = getattr(original, "__doc__", None)
        plt.show = show
        self.watch_savefig(sys.modules.get("matplotlib.figure"))
        plot_watch_axes(sys.modules.get("matplotlib.axes"))
        import warnings
        for message in SHOW_WARNINGS:
            warnings.filterwarnings("ignore", message=message, category=UserWarning)

    def watch_savefig(self, module):
        """Mark figures the user saved, so they are not saved a second time into the folder."""
        figure = getattr(module, "Figure", None)
        original = getattr(figure, "savefig", None)
        if original is None or getattr(original, "_interp_watch", False):
            return

        def savefig(fig, *args, **kwargs):
            result = original(fig, *args, **kwargs)
            fig._interp_saved = True
            if not self.saving:
                self.saved_by_code(fig, args[0] if args else kwargs.get("fname"))
            return result

        savefig._interp_watch = True
        savefig.__wrapped__ = original
        savefig.__doc__ = getattr(original, "__doc__", None)
        figure.savefig = savefig

    def saved_by_code(self, figure, target):
        """Note what a figure the code saved to a file plots (nothing for a file object)."""
        if not isinstance(target, (str, bytes)) and not hasattr(target, "__fspath__"):
            return
        try:
            path = os.path.abspath(os.fsdecode(os.fspath(target)))
            summary = plot_summary(figure)
        except Exception:  # a summary is never worth breaking the user's savefig
            return
        self.add({"kind": "plot", "text": "", "path": path, "data": {"plot": summary}})

    def summarize(self, figure):
        """What a figure plots, or None when it cannot be read."""
        try:
            return plot_summary(figure)
        except Exception:
            return None

    def begin(self, block):
        """Start collecting for a new block."""
        self.block, self.items, self.figures, self.omitted, self.plots = block, [], 0, 0, 0
        self.patch(sys.modules.get("matplotlib.pyplot"))

    def hook(self):
        """A context manager that routes the trailing value through rich_display."""
        return DisplayHook(self)

    def add(self, item):
        if item["kind"] == "plot":  # never listed as left out: the model is not told of them
            if self.plots < MAX_PLOTS:
                self.plots += 1
                self.items.append(item)
            return
        if len(self.items) - self.plots < MAX_DISPLAYS:
            self.items.append(item)
        else:
            self.omitted += 1

    def claim(self):
        """Create the next figure file name that is not taken (never overwrites)."""
        os.makedirs(self.directory, exist_ok=True)
        self.figures += 1
        stem = os.path.join(self.directory, "figure-%d-%d" % (self.block, self.figures))
        extra = 1
        while True:
            path = stem + (".png" if extra == 1 else "-%d.png" % extra)
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
                return path
            except FileExistsError:
                extra += 1

    def save_figures(self):
        """Save every open pyplot figure as a PNG, then close it."""
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is None:
            return
        for number in plt.get_fignums():
            figure = plt.figure(number)
            try:
                if not getattr(figure, "_interp_saved", False):
                    self.save(figure, number)
            finally:
                plt.close(figure)

    def save(self, figure, number):
        path = None
        try:
            path = self.claim()
            self.saving = True
            figure.savefig(path, format="png")
            figure._interp_saved = False
        except Exception as exc:  # a bad plot or an unwritable folder: say so, keep going
            if path is not None:
                try:
                    os.unlink(path)
                except OSError:
                    pass
            sys.stderr.write("[interp: figure %s could not be saved: %s: %s]\n"
                             % (number, type(exc).__name__, cut(str(exc), 300)))
            return
        finally:
            self.saving = False
        width, height = png_size(path)
        self.add({"kind": "image", "text": "[figure saved: %s]" % path, "path": path,
                  "data": {"format": "png", "mime": "image/png", "width": width,
                           "height": height, "figure": number,
                           "plot": self.summarize(figure)}})

    def close_figures(self):
        """Close the open figures without saving them (the block was interrupted)."""
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close("all")

    def finish(self, status, encode):
        """Save what is left open and put the block's displays into its status dict."""
        try:
            if status.get("status") == "interrupted":
                self.close_figures()
            else:
                self.save_figures()
        except KeyboardInterrupt:
            sys.stderr.write("KeyboardInterrupt\n")
            status = {"status": "interrupted"}
        except Exception as exc:  # pyplot itself broken by the user's code
            sys.stderr.write("[interp: figures could not be saved: %s]\n" % cut(str(exc), 300))
        if self.omitted:
            sys.stderr.write("[interp: %d more figures or values were not listed; figures are"
                             " in %s]\n" % (self.omitted, self.directory))
        if self.items:
            try:
                encode(self.items)
            except Exception:  # never let a display break the status line
                sys.stderr.write("[interp: displays could not be sent]\n")
            else:
                status = dict(status, displays=self.items)
        self.items = []
        return status
