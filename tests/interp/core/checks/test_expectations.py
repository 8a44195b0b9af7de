"""A block's own `# Output:` comments checked against what it printed; the code and output are
copied from the real 1.5B model's HumanEval runs (interp eval --feedback self)."""

from __future__ import annotations

import pytest

from interp.core.checks.expectations import Mismatch, mismatch_note, mismatches

pytestmark = pytest.mark.fast  # pure units

INTERSPERSE = '''from typing import List

def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    """ Insert a number 'delimeter' between every two consecutive elements of input list `numbers'
    >>> intersperse([], 4)
    []
    >>> intersperse([1, 2, 3], 4)
    [1, 4, 2, 4, 3]
    """
    return [numbers[i] if i % 2 == 0 else delimeter for i in range(len(numbers))]

# Check the examples
print(intersperse([], 4))  # Output: []
print(intersperse([1, 2, 3], 4))  # Output: [1, 4, 2, 4, 3]
'''

PALINDROME_CHECKS = '''print(make_palindrome(''))  # Output: ''
print(make_palindrome('cat'))  # Output: 'catac'
print(make_palindrome('cata'))  # Output: 'catac'
'''


def test_a_print_whose_line_differs_from_its_comment_is_found():
    assert mismatches(INTERSPERSE, "[]\n[1, 4, 3]\n") == [
        Mismatch(14, "print(intersperse([1, 2, 3], 4))", "[1, 4, 3]", "[1, 4, 2, 4, 3]",
                 argument="intersperse([1, 2, 3], 4)")]
    note = mismatch_note(mismatches(INTERSPERSE, "[]\n[1, 4, 3]\n"))
    assert "printed `[1, 4, 3]` but its comment expects `[1, 4, 2, 4, 3]`" in note
    assert "fix it and run the code again" in note


def test_strings_printed_without_their_quotes_and_an_empty_line_match():
    found = mismatches(PALINDROME_CHECKS, "\ncatc\ncatac\n")
    assert [(m.printed, m.expected) for m in found] == [("catc", "'catac'")]
    assert mismatches(PALINDROME_CHECKS, "\ncatac\ncatac\n") == []


def test_floats_spacing_and_other_comment_words_match_loosely():
    code = ("print(truncate_number(3.2))  # Expected output: 0.2\n"
            "print(f([1,2]))  # -> [1, 2]\nprint(g())  # should be True\n")
    assert mismatches(code, "0.1999999999999993\n[1, 2]\nTrue\n") == []
    assert len(mismatches(code, "0.1999999999999993\n[1, 2]\nFalse\n")) == 1


def test_nothing_is_claimed_when_the_lines_cannot_be_told_apart():
    loop = "for x in [1, 2]:\n    print(x)  # Output: 1\n"
    assert mismatches(loop, "1\n2\n") == []  # not a top-level run of prints
    keywords = "print(1, 2)  # Output: 1 2\nprint('a', end='')  # Output: b\n"
    assert mismatches(keywords, "1 2\na") == []
    assert mismatches(INTERSPERSE, "[]\n") == []  # fewer lines than prints
    assert mismatches("print(1)  # a count\n", "2\n") == []  # not an expectation
    assert mismatches("print(1  # Output: 1\n", "1\n") == []  # does not parse


FIND_ZERO = '''def find_zero(xs: list):
    """ xs are coefficients of a polynomial.
    >>> round(find_zero([1, 2]), 2) # f(x) = 1 + 2x
    -0.5
    >>> round(find_zero([-6, 11, -6, 1]), 2) # (x - 1) * (x - 2) * (x - 3) = -6 + 11x - 6x^2 + x^3
    1.0
    """
    x = 0.0
    for _ in range(100):
        x = x - 1.0
    return x

# Check the examples
print(round(find_zero([1, 2]), 2))  # f(x) = 1 + 2x
print(round(find_zero([-6, 11, -6, 1]), 2))  # (x - 1) * (x - 2) * (x - 3) = -6 + 11x - 6x^2 + x^3
'''


def test_a_print_of_a_docstring_example_is_held_to_the_example():
    """The 1.5B model's HumanEval/32 block (its prints copy the docstring's comments, not the
    results): both printed -100.0 and it answered "The values you found are -100.0 and -100.0"."""
    found = mismatches(FIND_ZERO, "-100.0\n-100.0\n")
    assert [(m.call, m.printed, m.expected, m.example) for m in found] == [
        ("print(round(find_zero([1, 2]), 2))", "-100.0", "-0.5", True),
        ("print(round(find_zero([-6, 11, -6, 1]), 2))", "-100.0", "1.0", True)]
    note = mismatch_note(found)
    assert note.startswith("The output does not match what your code's docstring examples "
                           "expect: `print(round(find_zero([1, 2]), 2))` printed `-100.0` but "
                           "the docstring expects `-0.5`;")
    assert mismatches(FIND_ZERO, "-0.5\n1.0\n") == []  # spacing of the call does not matter


def test_a_comment_that_copies_the_example_is_said_as_the_comment():
    """Where the comment and the example agree, the note is the comment's (as before); where
    they differ, the example counts."""
    found = mismatches(INTERSPERSE, "[]\n[1, 4, 3]\n")
    assert [m.example for m in found] == [False]
    wrong_comment = INTERSPERSE.replace("# Output: [1, 4, 2, 4, 3]", "# Output: [1, 4, 3]")
    found = mismatches(wrong_comment, "[]\n[1, 4, 3]\n")
    assert [(m.expected, m.example) for m in found] == [("[1, 4, 2, 4, 3]", True)]
    assert "what your code's docstring examples expect" in mismatch_note(found)


# HumanEval/38 (2026-11-29): the last print printed an empty string, so the output ends with an
# empty line; every print is still lined up with its own output line.
CYCLIC_CHECKS = '''print(encode_cyclic("abc"))  # Output: "bac"
print(encode_cyclic("abcdef"))  # Output: "bcaefd"
print(encode_cyclic(""))  # Output: ""
print(encode_cyclic("ab"))  # Output: "ba"
print(decode_cyclic("bac"))  # Output: "abc"
print(decode_cyclic("bcaefd"))  # Output: "abcdef"
print(decode_cyclic(""))  # Output: ""
'''


def test_empty_lines_printed_last_still_line_up_with_their_prints():
    found = mismatches(CYCLIC_CHECKS, "bca\nbcaefd\n\nab\nacb\ncabfde\n\n")
    assert [(m.line, m.printed, m.expected) for m in found] == [
        (1, "bca", '"bac"'), (4, "ab", '"ba"'), (5, "acb", '"abc"'), (6, "cabfde", '"abcdef"')]
    assert mismatches(CYCLIC_CHECKS, "") == []  # nothing printed: nothing to line up
