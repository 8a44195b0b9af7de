"""Bounded tables of DataFrames, Series and NumPy arrays for the Python driver and the Python
kernel setup.

Runs inside the user's python3, so it stays compatible with Python 3.8 and never imports pandas
or numpy itself: it only uses them once the user's code has imported them. A display is a
JSON-ready dict {"kind", "text", "path", "data"}.
"""

import sys

MAX_ROWS = 20  # rows of a table (head and tail halves when cut)
MAX_COLS = 20  # columns of a table (left and right halves when cut)
MAX_CELL = 50  # characters of one cell, column name or index label
MAX_TEXT = 8000  # characters of the text form the model gets
ARRAY_THRESHOLD = 200  # numpy summarises arrays with more elements than this


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
