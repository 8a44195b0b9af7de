"""Code that computed what the task asks and printed nothing."""

from __future__ import annotations

import pytest

from interp.core.checks.unprinted import printing, question_words, unprinted

pytestmark = pytest.mark.fast


def test_the_words_of_the_sentences_that_ask():
    task = "matrix.csv holds a 4x4 matrix. What is its determinant? Save its inverse."
    assert question_words(task) == {"what", "its", "determinant"}
    assert question_words("Save the totals to totals.csv.") == set()
    assert "total" in question_words("Fix summary.py, then tell me the grand total")


def test_values_the_question_names_that_no_print_names():
    code = ("import pandas as pd\ndf = pd.read_csv('sales.csv')\n"
            "total_revenue = (df.units * df.price).sum()\nprint(df.head())\n"
            "with open('x') as f:\n    lines = f.readlines()\n    if lines:\n"
            "        revenues = len(lines)\n"
            "def helper():\n    revenue = 1\n")
    assert unprinted(code, "What is the total revenue?") == ("total_revenue", "revenues")
    assert unprinted(code + "print(f'{total_revenue}')\n", "What is the revenue?") == ("revenues",)
    assert unprinted(code, "Save the revenue to a.csv.") == ()  # asks nothing
    assert unprinted("x = (", "What is x?") == ()  # does not parse


def test_a_block_that_prints_values():
    assert printing(("a", "b")) == 'print("a:", a)\nprint("b:", b)'
