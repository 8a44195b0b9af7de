"""Runs inside a Python (IPython) kernel, loaded with `tables.py` and `display.py`.

Registers one more IPython display formatter: DataFrames, Series and NumPy arrays shown by a
block also carry interp's bounded table (`rich_display`, the Python runner's own code) under
TABLE_MIME, which the runner turns into a table Display. Never imports pandas or numpy: the
types are matched by name once the user's code has imported them.
"""

from .tables import rich_display

TABLE_MIME = "application/vnd.interp.table+json"
# pandas 3 reports its classes' module as "pandas", earlier versions as "pandas.core.*".
TABLE_TYPES = (("pandas", "DataFrame"), ("pandas.core.frame", "DataFrame"), ("pandas", "Series"),
               ("pandas.core.series", "Series"), ("numpy", "ndarray"))


def table_for(value):
    """The display dict for a DataFrame, Series or ndarray, or None (then no table is sent)."""
    try:
        return rich_display(value)
    except Exception:  # an odd subclass must not break the display
        return None


def install_formatter(shell):
    """Add the table formatter to an IPython shell; False when there is no IPython."""
    if shell is None:
        return False
    from IPython.core.formatters import BaseFormatter
    from traitlets import ObjectName, Unicode

    class InterpTableFormatter(BaseFormatter):
        format_type = Unicode(TABLE_MIME)
        print_method = ObjectName("_repr_interp_table_")
        _return_type = dict

    formatter = InterpTableFormatter(parent=shell.display_formatter)
    shell.display_formatter.formatters[TABLE_MIME] = formatter
    for module, name in TABLE_TYPES:
        formatter.for_type_by_name(module, name, table_for)
    return True
