"""A reply that keeps repeating itself (stream.repeating), on replies from real transcripts:
the point where a streamed reply is stopped, and replies that go on."""

from __future__ import annotations

import pytest

from interp.models.stream import REPEAT_SPAN, repeating

pytestmark = pytest.mark.fast

# Qwen2.5-Coder-1.5B, greedy, answering a question on a table (2026-12-06): two numbers
# written in turn until the 1,024-token limit, twice.
LOOPED_NUMBERS = ("Return 4 values: @clean_entries[1153], @mean_USFLUX[21.786, 21.740, 21.797, "
                  "21.654, 89.953, 89.552, 89.355, 89.355, 87.089, 87.454, 86.248, 84.835, "
                  "84.526, 84.563, 84.563" + ", 84.526, 84.563" * 200)
# The same model after a table of one row per group: one line written again and again.
LOOPED_LINE = "For each continent:\n@asia[0.00]\n@europe[0.00]\n" + "@asia[0.00]\n" * 120
# The same model completing a function: four doctest cases of a docstring, over and over.
LOOPED_DOCTESTS = ('def xor(a: str, b: str) -> str:\n    """XOR of two bit strings.\n'
                   + "".join(f"    >>> xor('{a}', '{b}')\n    '{int(a != b)}'\n"
                             for a, b in ("10", "01", "00", "11") * 12))
CODE = ("```python\nimport pandas as pd\n\ndf = pd.read_csv('sales.csv')\n"
        + "".join(f"print(df['{c}'].describe())\n" for c in
                  ("price", "units", "region", "discount", "returns", "margin", "cost"))
        + "totals = df.groupby('region')['price'].sum()\nprint(totals.sort_values())\n"
        + "# the mean, the median and the spread of each numeric column, side by side\n"
        + "print(df.select_dtypes('number').agg(['mean', 'median', 'std']).T)\n```\n")


def stopped_at(text: str, piece: int = 4) -> int | None:
    """Where a reply streamed `piece` characters at a time would be stopped."""
    for end in range(piece, len(text) + piece, piece):
        if repeating(text[:end]):
            return min(end, len(text))
    return None


@pytest.mark.parametrize("text", [LOOPED_NUMBERS, LOOPED_LINE, LOOPED_DOCTESTS])
def test_a_reply_looping_on_a_short_piece_is_stopped_soon_after_the_loop_starts(text):
    at = stopped_at(text)
    assert at is not None and at < REPEAT_SPAN + 300 < len(text)


@pytest.mark.parametrize("text", [
    CODE, CODE * 3,  # a long reply whose lines differ
    "Here are the results:\n" + "".join(f"| {i} | {i * i} | {i ** 0.5:.3f} |\n"
                                        for i in range(60)),
    "Done.\n" + " " * 900,  # blanks only: nothing repeated worth stopping
    "ab" * 200,  # shorter than the span
])
def test_replies_that_do_not_loop_go_on(text):
    assert stopped_at(text) is None
