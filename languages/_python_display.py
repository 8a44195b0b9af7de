"""Figures and rich values for the Python driver; its source is put in front of the driver's.

Runs inside the user's python3, so it stays compatible with Python 3.8 and never imports
matplotlib, pandas or numpy itself: it only uses them once the user's code has imported them.
Each display is a JSON-ready dict {"kind", "text", "path", "data"} that the driver sends in its
status line; languages.events.Display is the runner-side form.
"""

import builtins
import os
import sys

MAX_ROWS = 20  # rows of a table (head and tail halves when cut)
MAX_COLS = 20  # columns of a table (left and right halves when cut)
MAX_CELL = 50  # characters of one cell, column name or index label
MAX_TEXT = 8000  # characters of the text form the model gets
MAX_DISPLAYS = 100  # displays reported per block; later figures are still saved
ARRAY_THRESHOLD = 200  # numpy summarises arrays with more elements than this
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SHOW_WARNINGS = (r"(?s).*non-interactive, and thus cannot be shown",
                 r"(?s).*non-GUI backend, so cannot show the figure")


def cut(text, limit):
    """text shortened to at most limit characters, ending with an ellipsis when cut."""
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def cut_text(text):
    """The model's text form, bounded."""
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + "\n[... %d more characters not shown]" % (len(text) - MAX_TEXT)


def cell(value):
    """One table cell as a short, single-line string."""
    try:
        if isinstance(value, float):
            text = "NaN" if value != value else str(round(value, 6))
        else:
            text = str(value)
    except Exception:  # a broken __str__ must not break the display
        text = "<unprintable %s>" % type(value).__name__
    text = text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    return cut(text, MAX_CELL)


def positions(total, limit):
    """The positions kept out of total (head and tail) and where the gap is (None if none)."""
    if total <= limit:
        return list(range(total)), None
    head = limit - limit // 2
    return list(range(head)) + list(range(total - (limit - head), total)), head


def table(kind, shape, columns, dtypes, index, rows, row_gap, col_gap, **extra):
    """The structured, bounded table the renderer draws."""
    data = {"type": kind, "shape": [int(n) for n in shape], "columns": columns,
            "dtypes": dtypes, "index": index, "rows": rows, "row_gap": row_gap,
            "col_gap": col_gap}
    data.update(extra)
    return data


def frame_display(pd, df):
    """A DataFrame as bounded text and table."""
    nrows, ncols = df.shape
    keep_rows, row_gap = positions(nrows, MAX_ROWS)
    keep_cols, col_gap = positions(ncols, MAX_COLS)
    part = df.iloc[keep_rows, keep_cols]
    rows = [[cell(v) for v in row] for row in part.itertuples(index=False, name=None)]
    data = table("DataFrame", df.shape, [cell(c) for c in part.columns],
                 [str(t) for t in part.dtypes], [cell(i) for i in part.index], rows,
                 row_gap, col_gap, index_names=[None if n is None else cell(n)
                                                for n in df.index.names])
    try:
        text = df.to_string(max_rows=MAX_ROWS, max_cols=MAX_COLS, max_colwidth=MAX_CELL,
                            show_dimensions=False)
    except TypeError:  # pandas before 1.0 has no max_colwidth
        text = df.to_string(max_rows=MAX_ROWS, max_cols=MAX_COLS, show_dimensions=False)
    text += "\n[DataFrame: %d rows x %d columns]" % (nrows, ncols)
    return {"kind": "table", "text": cut_text(text), "path": None, "data": data}


def series_display(pd, series):
    """A Series as bounded text and a one-column table."""
    total = len(series)
    keep, row_gap = positions(total, MAX_ROWS)
    part = series.iloc[keep]
    name = "" if series.name is None else cell(series.name)
    data = table("Series", (total,), [name], [str(series.dtype)],
                 [cell(i) for i in part.index], [[cell(v)] for v in part.tolist()],
                 row_gap, None, name=None if series.name is None else name,
                 index_names=[None if n is None else cell(n) for n in series.index.names])
    with pd.option_context("display.max_colwidth", MAX_CELL):
        text = series.to_string(max_rows=MAX_ROWS, name=True, dtype=True, length=False)
    text += "\n[Series: %d rows]" % total
    return {"kind": "table", "text": cut_text(text), "path": None, "data": data}


def array_display(np, array):
    """A NumPy array as bounded text, and as a table when it has one or two dimensions."""
    try:
        text = np.array2string(array, threshold=ARRAY_THRESHOLD,
                               edgeitems=5 if array.ndim <= 2 else 3, max_line_width=120)
    except TypeError:  # a very old numpy
        text = repr(array)
    shape = tuple(int(n) for n in array.shape)
    text += "\n[ndarray: shape %r, dtype %s]" % (shape, array.dtype)
    data = None
    if array.ndim in (1, 2):
        keep_rows, row_gap = positions(shape[0], MAX_ROWS)
        if array.ndim == 1:
            keep_cols, col_gap = [0], None
            values = [[v] for v in array[keep_rows].tolist()]
        else:
            keep_cols, col_gap = positions(shape[1], MAX_COLS)
            values = array[keep_rows][:, keep_cols].tolist()
        rows = [[cell(v) for v in row] for row in values]
        columns = [str(c) for c in keep_cols] if array.ndim == 2 else [""]
        data = table("ndarray", shape, columns, [str(array.dtype)] * len(columns),
                     [str(r) for r in keep_rows], rows, row_gap, col_gap,
                     dtype=str(array.dtype))
    return {"kind": "table", "text": cut_text(text), "path": None, "data": data}


def rich_display(value):
    """A display dict for a DataFrame, Series or ndarray; None for every other value."""
    pd = sys.modules.get("pandas")
    if pd is not None:
        frame, series = getattr(pd, "DataFrame", None), getattr(pd, "Series", None)
        if isinstance(frame, type) and isinstance(value, frame):
            return frame_display(pd, value)
        if isinstance(series, type) and isinstance(value, series):
            return series_display(pd, value)
    np = sys.modules.get("numpy")
    ndarray = getattr(np, "ndarray", None) if np is not None else None
    if isinstance(ndarray, type) and isinstance(value, ndarray) and value.ndim > 0:
        return array_display(np, value)
    return None


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
            return result

        savefig._interp_watch = True
        savefig.__wrapped__ = original
        savefig.__doc__ = getattr(original, "__doc__", None)
        figure.savefig = savefig

    def begin(self, block):
        """Start collecting for a new block."""
        self.block, self.items, self.figures, self.omitted = block, [], 0, 0
        self.patch(sys.modules.get("matplotlib.pyplot"))

    def hook(self):
        """A context manager that routes the trailing value through rich_display."""
        return DisplayHook(self)

    def add(self, item):
        if len(self.items) < MAX_DISPLAYS:
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
        width, height = png_size(path)
        self.add({"kind": "image", "text": "[figure saved: %s]" % path, "path": path,
                  "data": {"format": "png", "mime": "image/png", "width": width,
                           "height": height, "figure": number}})

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
