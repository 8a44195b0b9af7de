"""The benchmark's closed-form scoring: `@name[value]` in the final answer, text equal or
numbers within 1e-6, a question right when every sub-answer is."""

from __future__ import annotations

import pytest

from interp.eval.dabench.scoring import answers, equal, score, values_shown

pytestmark = pytest.mark.fast


def test_the_pairs_are_read_from_anywhere_in_the_text_and_the_last_one_wins():
    text = "First @mean[3.1], then, checked again:\n@mean[3.14] and @n[12]."
    assert answers(text) == {"mean": "3.14", "n": "12"}
    assert answers("The mean is 3.14.") == {}


@pytest.mark.parametrize("got, label, right", [
    ("4.5", "4.50", True), (" 4.50 ", "4.50", True), ("4.50001", "4.50", False),
    ("4.5000001", "4.5", True), ("Lima", "Lima", True), ("lima", "Lima", False),
    ("nan", "nan", True), ("inf", "1e309", False), ("1,000", "1000", False),
])
def test_equal_is_the_same_text_or_numbers_within_the_tolerance(got, label, right):
    assert equal(got, label) is right


def test_a_question_is_right_only_when_every_sub_answer_is():
    labels = (("count", "2"), ("total", "11.5"))
    both = score(labels, "@count[2]\n@total[11.50]")
    assert both.right and both.formatted
    one = score(labels, "@count[2] and the total is 11.5")
    assert not one.right and not one.formatted
    assert [(s.name, s.got, s.right) for s in one.subs] == [("count", "2", True), ("total", None, False)]
    wrong = score(labels, "@count[3]\n@total[11.5]")
    assert not wrong.right and wrong.formatted


def test_values_shown_finds_the_values_in_any_form():
    labels = (("count", "2"), ("city", "Lima"), ("mean", "4.50"))
    assert values_shown(labels, "2 rows\nLima\nmean 4.5")
    assert values_shown(labels, "@count[2] @city[Lima] @mean[4.5]")
    assert not values_shown(labels, "2 rows, Lima, mean 4.6")
    assert not values_shown(labels, "20 rows, mean 4.5, Lima")
