"""The answer in the form the task asks for: a template's slots, JSON, decimal places."""

from __future__ import annotations

import pytest

from check_kit import record, view
from interp.core.checks.choices import slot_choices
from interp.models.base import Slot
from interp.core.checks.form import answer_form, answer_format, given_values, missing_form

pytestmark = pytest.mark.fast

TEMPLATE = ("What is the mean and the spread of the weight column in parcels.csv?\n"
            "Give your answer in this format: @mean_weight[value] @weight_std[value], where "
            "each value is rounded to two decimal places.")


def test_a_template_s_slots_and_decimal_places_are_read_from_the_task():
    form = answer_form(TEMPLATE)
    assert form.slots == ("@mean_weight[", "@weight_std[") and form.decimals == 2
    assert not form.json and "@mean_weight[value]" in form.said


def test_a_placeholder_that_describes_its_value_at_length_is_a_slot():
    """A template often says in each slot what goes there, in a sentence; a slot whose
    placeholder was longer than 80 characters was not read, so an answer that left it out
    was taken as in form."""
    task = ("Compare the delivery times of the two couriers in parcels.csv.\n"
            "Give your final answer in exactly this format: @mean_gap[The difference between "
            "the two couriers' mean delivery times in hours, rounded to two decimal places], "
            "@test_result[The outcome of a two-sided t-test at the 0.05 level: either "
            "\"significant\" or \"not significant\"]")
    form = answer_form(task)
    assert form.slots == ("@mean_gap[", "@test_result[")
    assert missing_form(form, "@mean_gap[1.25]") == ["it has no `@test_result[...]`"]
    assert slot_choices(task, "@test_result[", form.placeholders[1]) == (
        "significant", "not significant")


def test_code_the_task_quotes_is_no_template():
    form = answer_form("Why does df['price'].sum() give a string? Explain it to me.")
    assert not form and form.slots == ()


@pytest.mark.parametrize("task, decimals", [
    ("Round to 3 decimal places.", 3), ("Give four decimals.", 4),
    ("Mean to one decimal place, median to two decimal places.", 2), ("Sum it.", None)])
def test_decimal_places_are_the_most_the_task_states(task, decimals):
    assert answer_form(task).decimals == decimals


def test_what_an_answer_lacks_is_said():
    form = answer_form(TEMPLATE)
    assert missing_form(form, "@mean_weight[4.25]\n@weight_std[1.07]") == []
    assert missing_form(form, "The mean is 4.25 and the spread 1.07.") == [
        "it has no `@mean_weight[...]` and `@weight_std[...]`"]
    assert missing_form(form, "@mean_weight[4.2541] @weight_std[1.07]") == [
        "4.2541 has more than 2 decimal places"]


def test_json_is_asked_only_when_no_json_file_is_named():
    assert answer_form("List the three largest cities. Answer in JSON.").json
    assert not answer_form("Convert cities.csv to cities.json, formatted as JSON lines.").json
    form = answer_form("Give the counts as JSON.")
    assert missing_form(form, 'Here: ```json\n{"a": 1}\n```') == []
    assert missing_form(form, "a is 1 and b is 2") == ["it holds no JSON value"]
    assert missing_form(form, "[" * 5000) == ["it holds no JSON value"]  # bounded, no crash


def test_an_answer_out_of_form_is_sent_back_once_without_retracting_it():
    request = answer_format(view(TEMPLATE, "The mean weight is 4.25 kg, the spread 1.07 kg."))
    assert request is not None and not request.retracts
    assert request.message.startswith("Your answer does not take the form the task asks for")
    assert "Reply with your final answer again in exactly that form" in request.message
    assert answer_format(view(TEMPLATE, "@mean_weight[4.25] @weight_std[1.07]")) is None


def test_the_request_shows_the_template_s_lines_to_copy_and_holds_the_reply_to_its_slots():
    """Qwen2.5-Coder-1.5B answered `@Switzerland[Switzerland]` (the value where the slot's
    name goes) and, asked to restate, wrote the same again; shown the lines to copy, and held
    to the slots, it filled them."""
    ran = [record(1, "print(w.mean(), w.std())", "4.25 1.07")]
    request = answer_format(view(TEMPLATE, "@4.25[4.25] @1.07[1.07]", records=ran))
    assert request is not None and request.template == (Slot("@mean_weight["),
                                                        Slot("@weight_std["))
    assert request.message.endswith(
        "and no code: copy these lines, and replace each placeholder (the text in brackets) "
        "with its value; the text before each bracket stays as it is:\n"
        "@mean_weight[value]\n@weight_std[value]")
    plain = answer_format(view("Give the total as JSON.", "The total is 4.", records=ran))
    assert plain is not None and plain.template == () and plain.message.endswith("no code.")


def test_after_a_failed_block_the_restatement_is_not_held_to_the_slots():
    """Held to the slots, Qwen2.5-Coder-1.5B wrote values after code that had failed three
    times; the answer it had given said what went wrong."""
    failed = [record(1, "print(w.mean())", "", status="ok"),
              record(2, "print(df['weight'].mean())", "KeyError: 'weight'", status="error")]
    request = answer_format(view(TEMPLATE, "The code failed: there is no weight column.",
                                 records=failed))
    assert request is not None and request.template == ()
    assert request.message.endswith("@mean_weight[value]\n@weight_std[value]")  # still shown
    assert answer_format(view(TEMPLATE, "The mean is 4.25.")).template == ()  # nothing ran


CONDITIONAL = ("How many outliers does the price column have?\nGive your final answer in "
               "exactly this format: @outlier_count[count] where count is an integer. If "
               "there are no outliers, output @outlier_status[\"None found\"]")


def test_a_slot_the_template_gives_in_a_condition_is_not_required():
    form = answer_form(CONDITIONAL)
    assert form.slots == ("@outlier_count[", "@outlier_status[")
    assert form.optional == ("@outlier_status[",) and form.required == ("@outlier_count[",)
    assert missing_form(form, "@outlier_count[25]") == []
    assert missing_form(form, "There are 25.") == ["it has no `@outlier_count[...]`"]
    assert form.lines() == "@outlier_count[count]"


def test_when_every_slot_is_a_condition_s_one_of_them_answers():
    form = answer_form("Is the mean above 3? Answer in this format: if it is, "
                       "@above[value]; otherwise @below[value].")
    assert form.required == form.slots == ("@above[", "@below[")
    assert missing_form(form, "@below[2.5]") == []
    assert missing_form(form, "It is below.") == ["it has no `@above[...]` and `@below[...]`"]


@pytest.mark.parametrize("task", [
    "Should I write this tool in Python or in Go? Just give me your opinion.",
    "Explain what x^2 + 1 means; don't compute anything.",
    "What's the difference between a list and a tuple?",
    "Thanks, that's all for now.",
])
def test_chat_sentences_ask_for_no_form(task):
    assert not answer_form(task)
    assert answer_format(view(task, "Here is my view: 3.14159 is pi.")) is None


def test_an_answer_stopped_repeating_itself_is_restated_with_repeats_penalised():
    looped = "@mean_weight[4.25] @weight_std[" + "1.07, " * 150
    request = answer_format(view(TEMPLATE, looped, samples={"runaway"}, finish="repeating"))
    assert request is not None and request.sampling == "runaway"
    plain = answer_format(view(TEMPLATE, "The mean is 4.25.", samples={"runaway"}))
    assert plain is not None and plain.sampling is None


def test_a_slot_that_still_holds_the_template_s_placeholder_is_said():
    """Qwen2.5-Coder-1.5B printed the right values, then answered with the template copied and
    the values beside it."""
    form = answer_form(TEMPLATE)
    assert missing_form(form, "@mean_weight[value] 4.25 @weight_std[value] 1.07") == [
        "`@mean_weight[...]` and `@weight_std[...]` still hold the template's placeholder "
        "instead of the value"]
    assert missing_form(form, "@mean_weight[4.25] @weight_std[Value ]") == [
        "`@weight_std[...]` still holds the template's placeholder instead of the value"]
    assert missing_form(form, "@mean_weight[4.25] @weight_std[1.07]") == []


DESCRIBED = ("Is the weight column of parcels.csv skewed?\nGive your final answer in exactly "
             "this format: @weight_skew[float between -1 and 1, rounded to two decimal places] "
             "@verdict[string]")


def test_words_of_the_placeholder_beside_a_value_are_said_and_the_value_shown_to_copy():
    """Qwen2.5-Coder-1.5B printed its value inside a copy of the placeholder's description
    (`[0.14, rounded to two decimal places]`) and answered with that line; the slot is to
    hold the value alone."""
    form = answer_form(DESCRIBED)
    answer = "@weight_skew[0.14, rounded to two decimal places] @verdict[skewed]"
    assert given_values(form, answer) == {"@weight_skew[": "0.14"}
    assert missing_form(form, answer) == [
        "`@weight_skew[...]` holds words of the template's placeholder beside the value"]
    ran = [record(1, "print(w.skew())", "0.14")]
    request = answer_format(view(DESCRIBED, answer, records=ran))
    assert request is not None and request.message.endswith(
        "copy these lines, which hold the values your answer gave (replace any placeholder "
        "left in brackets with its value); the text before each bracket stays as it is:\n"
        "@weight_skew[0.14]\n@verdict[skewed]")
    assert missing_form(form, "@weight_skew[0.14] @verdict[skewed]") == []
    # a value that shares fewer than three words with the placeholder is the model's own
    assert given_values(form, "@weight_skew[0.14 to two places] @verdict[no]") == {}


@pytest.mark.parametrize("answer, given", [
    ("{ @mean_weight[value] = 4.25 } @weight_std[value]: -1.07.",
     {"@mean_weight[": "4.25", "@weight_std[": "-1.07"}),
    ("@mean_weight[value] 4.25 @weight_std[value] 1.07",
     {"@mean_weight[": "4.25", "@weight_std[": "1.07"}),
    ("@mean_weight[value] @weight_std[value]", {}),
    ("@mean_weight[4.25] @weight_std[value]\nThe spread is 1.07.", {}),
])
def test_a_value_written_after_a_slot_left_with_its_placeholder_is_shown_in_it(answer, given):
    """Qwen2.5-Coder-1.5B answered `{ @name[placeholder] = value }`: the template copied, its
    value after it. The request shows the slot with that value, the others with their
    placeholders."""
    form = answer_form(TEMPLATE)
    assert given_values(form, answer) == given
    request = answer_format(view(TEMPLATE, answer, records=[record(1, "print(1)", "1")]))
    assert request is not None
    assert request.message.endswith(form.lines(given))


CHOICES = ("Is there a linear relation between the weight and the price in parcels.csv?\n"
           "Give your final answer in exactly this format: @weight_price_r[r_value]\n"
           "@relation[relation_kind] @normal_weight[yes/no]\n"
           "where \"r_value\" is a number between -1 and 1, rounded to two decimal places and "
           "\"relation_kind\" is a string that can either be \"linear\", \"nonlinear\", or "
           "\"none\" based on the p-value.")


@pytest.mark.parametrize("placeholder, task, choices", [
    ("yes/no", "", ("yes", "no")),
    ('"Yes"/"No"', "", ("Yes", "No")),
    ('A string that is either "Normal" or "Not Normal"', "", ("Normal", "Not Normal")),
    ("kind", 'where "kind" is one of "up", "down" or "flat".', ("up", "down", "flat")),
    ("a", '"a" and "b" are strings that can be "high" or "low".', ("high", "low")),
    ("value", 'where "value" is a number, rounded to two places.', ()),
    ("range", '"range" should be a string, for example "0-1" or "1-2".', ()),
    ("r_value", 'where "r_value" is a number and "kind" can be "a" or "b".', ()),
    ("km/h", "", ()),  # a unit is no list of choices
    ("m/s", "", ()),
    ("3/4", "", ()),
])
def test_the_values_a_slot_may_take_are_read_where_the_task_lists_them(
        placeholder, task, choices):
    assert slot_choices(task, "@x[", placeholder) == choices


def test_an_answer_that_writes_none_of_a_slot_s_listed_values_is_told_which_they_are():
    """Qwen2.5-Coder-1.5B wrote `False` where the task listed "yes" or "no", and a Python
    condition where it listed "linear", "nonlinear" or "none", after printing the values
    that decide it."""
    form = answer_form(CHOICES)
    assert form.choices == ((), ("linear", "nonlinear", "none"), ("yes", "no"))
    answer = ("@weight_price_r[-0.08] @relation[False or (r > 0.5 and 'nonlinear')] "
              "@normal_weight[False]")
    assert missing_form(form, answer) == [
        "`@relation[False or (r > 0.5 and 'nonlinear')]` is none of the values the task "
        "lists for it (\"linear\", \"nonlinear\" or \"none\"): write the one the output shows "
        "applies",
        "`@normal_weight[False]` is none of the values the task lists for it (\"yes\" or "
        "\"no\"): write the one the output shows applies"]
    request = answer_format(view(CHOICES, answer, records=[record(1, "print(r, p)", "-0.08 0.7")]))
    assert request is not None and request.message.endswith(
        "@weight_price_r[r_value]\n@relation[relation_kind]\n@normal_weight[yes/no]")
    assert request.template == (Slot("@weight_price_r["),  # a held restatement chooses
                                Slot("@relation[", ("linear", "nonlinear", "none")),
                                Slot("@normal_weight[", ("yes", "no")))
    assert missing_form(form, '@weight_price_r[-0.08] @relation["None"] @normal_weight[No.]') == []
