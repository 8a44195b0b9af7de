"""Reading tool calls written as text, and repairing cut-off arguments."""

from __future__ import annotations

import json

import pytest

from interp.core.replies.textcalls import TextCall, repair_json, text_calls, valid_arguments

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

ARGS = {"language": "shell", "code": "ls -l"}


def test_two_hermes_calls_in_order():
    text = "".join(f'<tool_call>{{"name": "execute", "arguments": {json.dumps(dict(ARGS, code=c))}}}'
                   f'</tool_call>\n' for c in ("ls", "pwd"))
    assert [c.arguments["code"] for c in text_calls(text)] == ["ls", "pwd"]


def test_an_unclosed_tag_at_the_end_is_read():
    calls = text_calls('Sure.\n<tool_call>\n{"name": "execute", "arguments": {"code": "ls"}}')
    assert calls == [TextCall("execute", {"code": "ls"}, calls[0].raw)]


def test_a_misnamed_tagged_call_is_still_a_call():
    assert text_calls('<tool_call>{"name": "read_file", "arguments": {"path": "x"}}</tool_call>')[0].name == "read_file"


def test_openai_shaped_object_and_string_arguments():
    text = json.dumps({"type": "function", "function": {"name": "execute",
                                                        "arguments": json.dumps(ARGS)}})
    assert text_calls(text)[0].arguments == ARGS


def test_a_made_up_name_with_the_execute_arguments_is_an_execute_call():
    """Qwen2.5-Coder-0.5B names the call after the task ("multiply") but fills in our arguments."""
    args = {"language": "python", "code": "123456789 * 987654321"}
    text = "```json\n" + json.dumps({"name": "multiply", "arguments": args}, indent=2) + "\n```"
    assert text_calls(text) == [TextCall("execute", args, text_calls(text)[0].raw)]
    config = ('Here is the config:\n```json\n{"name": "config", "arguments": {"language": "en", '
              '"size": 3}}\n```\nSave it as config.json.')
    assert text_calls(config) == []  # data shown among prose, that only shares a key, is left alone


@pytest.mark.parametrize("text", [
    '```json\n{"name": "summarise_sales", "arguments": {"file": "sales.csv"}}\n```',
    '{"name": "summarise_sales", "parameters": {"file": "sales.csv"}}',
    '[{"type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"a\\"}"}}]',
])
def test_a_reply_that_is_only_a_call_of_a_made_up_function_is_that_call(text):
    """Qwen2.5-Coder-1.5B, asked to summarise sales.csv, answered only with a JSON call of a
    function `summarise_sales` that does not exist; it must not become the answer."""
    calls = text_calls(text)
    assert len(calls) == 1 and calls[0].name in ("summarise_sales", "read_file")


@pytest.mark.parametrize("text", [
    "Just an answer: 42.",
    '```json\n{"name": "Ada", "age": 36}\n```',
    '{"name": "Ada", "age": 36}',
    'The call would be:\n```json\n{"name": "config", "arguments": {"a": 1}}\n```\nbut it is data.',
    '```python\nprint({"name": "execute", "arguments": {}})\n```',
    '```json\n[{"name": "execute", "arguments": {"code": "ls"}}, {"name": "other"}]\n```',
    "",
])
def test_things_that_are_not_calls(text):
    assert text_calls(text) == []


@pytest.mark.parametrize("cut,expected", [
    ('{"language": "python", "code": "print(1', {"language": "python", "code": "print(1"}),
    ('{"a": [1, 2, {"b": "x', {"a": [1, 2, {"b": "x"}]}),
    ('{"a": "back\\', {"a": "back"}),
    ('{"a": 1, ', {"a": 1}),
])
def test_repair_closes_what_was_left_open(cut, expected):
    assert json.loads(repair_json(cut)) == expected


def test_repair_gives_up_on_nonsense():
    assert repair_json('{"a": ]') is None and repair_json("not json {") is None


def test_valid_arguments_is_always_an_object():
    assert valid_arguments('{"code": "x"}') == '{"code": "x"}'
    assert json.loads(valid_arguments('{"code": "x')) == {"code": "x"}
    assert valid_arguments("") == "{}" and valid_arguments("[1]") == "{}" and valid_arguments("{:") == "{}"
