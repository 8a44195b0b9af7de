"""The Python driver: the program the Python runner starts in the user's Python, and the setup a
Python kernel runs. It runs there as the package `_interp_driver` (a private name no module of
the user's can take), from a copy in interp's cache folder, so Python keeps it compiled; its
modules import each other relatively and use nothing beyond the standard library (Python 3.8
and newer). interp imports them as `languages.python.driver` (for its tests and the few helpers
it shares: `rewrite.console_paste`, `display.png_size`, `tables.cut_text`)."""
