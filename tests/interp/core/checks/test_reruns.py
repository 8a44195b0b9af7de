"""Code that failed, proposed again unchanged, and blocks cut off at the length limit: not run,
asked again with the model's declared sampling."""

from __future__ import annotations

import pytest

from check_kit import record, view
from interp.core.checks.reruns import STOPPED_NOTE, cut_off, repeat_failed

pytestmark = pytest.mark.fast

FAILED = ("Traceback (most recent call last):\n  File \"<block 1>\", line 2, in <module>\n"
          "ZeroDivisionError: division by zero\n")


def test_code_that_failed_proposed_again_is_not_run():
    ran = [record(1, "x = 1\ny = x / 0", FAILED, status="error")]
    request = repeat_failed(view("Divide.", proposed=[("python", "x = 1\ny = x / 0\n")],
                                 records=ran, samples={"retry"}))
    assert request is not None and request.retracts and request.sampling == "retry"
    assert request.message == ("Note: your last reply proposed the code of block 1 again, which "
                               "failed on line 2: `y = x / 0`; it was not run. Write changed code "
                               "that avoids that error.")


def test_code_is_run_again_once_something_else_ran_or_for_a_model_that_declares_no_sampling():
    failed = record(1, "y = x / 0", FAILED, status="error")
    again = [("python", "y = x / 0")]
    assert repeat_failed(view("Divide.", proposed=again, records=[failed])) is None  # no sampling
    later = [failed, record(2, "x = 2", "")]
    assert repeat_failed(view("Divide.", proposed=again, records=later, samples={"retry"})) is None
    other = [("python", "y = x / 0"), ("python", "print(y)")]
    assert repeat_failed(view("Divide.", proposed=other, records=[failed], samples={"retry"})) is None


def test_a_reply_cut_off_inside_its_blocks_is_asked_again_with_repeats_penalised():
    proposed = [("python", "print(1)\nprint(1)\n", True)]
    request = cut_off(view("Print.", proposed=proposed, samples={"runaway"}))
    assert request is not None and request.sampling == "runaway" and request.retracts
    assert cut_off(view("Print.", proposed=proposed)) is None
    assert cut_off(view("Print.", proposed=[("python", "print(1)", False)], samples={"runaway"})) is None


def test_a_reply_stopped_repeating_itself_inside_its_block_is_asked_again_saying_so():
    proposed = [("python", "print(1)\n" * 80, True)]
    request = cut_off(view("Print.", proposed=proposed, samples={"runaway"}, finish="repeating"))
    assert request.message == STOPPED_NOTE and request.sampling == "runaway"
