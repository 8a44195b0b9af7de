"""A SKILL.md's front matter as skills write it: plain, quoted and block values, nested keys
read over; anything else refused, saying where."""

from __future__ import annotations

import re

import pytest

from interp.skills.frontmatter import FrontMatterError, front_matter

pytestmark = pytest.mark.fast


def test_plain_quoted_and_block_values():
    text = """---
name: pdf-forms   # a comment
description: >-
  Fill in PDF forms: read the fields,
  write the values.

  Then check them.
license: 'Apache 2.0, see ''LICENSE'''
note: "a \\"quoted\\" word"
steps: |
  one
    two
metadata:
  author: someone
  tags: [a, b]
allowed-tools: Bash(python:*)
---
# PDF forms
"""
    assert front_matter(text) == {
        "name": "pdf-forms",
        "description": "Fill in PDF forms: read the fields, write the values.\nThen check them.",
        "license": "Apache 2.0, see 'LICENSE'",
        "note": 'a "quoted" word',
        "steps": "one\n  two",
        "metadata": None,
        "allowed-tools": "Bash(python:*)",
    }


def test_a_plain_value_may_go_on_over_indented_lines():
    assert front_matter("\ufeff---\ndescription: Summarise a CSV\n  into a report.\n---\n") == {
        "description": "Summarise a CSV into a report."}


@pytest.mark.parametrize("text, said", [
    ("# just markdown\n", "does not start with a front matter block"),
    ("---\nname: x\n", "not closed"),
    ("---\nname x\n---\n", "line 2 of its front matter is not `key: value`"),
    ("---\nname: x\nname: y\n---\n", "gives 'name' twice"),
    ("---\nname: 'x\n---\n", "'name' in its front matter: its quote is not closed"),
    ("---\ndescription: [a, b]\n---\n", "lists and mappings are not text"),
    ("---\nname: 'x' y\n---\n", "unexpected text after the quoted value"),
])
def test_malformed_front_matter_says_what_and_where(text, said):
    with pytest.raises(FrontMatterError, match=re.escape(said)):
        front_matter(text)
