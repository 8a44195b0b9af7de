"""Functions a runner offers beside `execute` (an MCP server's tools): a call of one, made
as a tool call or written as text, becomes a block of the runner's language."""

from __future__ import annotations

import json

import pytest

from languages import Registry
from languages.python import PythonRunner

from interp.core.replies.steps import RunnerFunction, runner_functions, steps_from_reply
from interp.models.base import Reply, ToolCall

pytestmark = pytest.mark.fast  # replies and records only


class Greeter:
    """A runner of the `greet` language that offers one function."""

    name = "greet"
    aliases = ()

    @classmethod
    def functions(cls):
        return (RunnerFunction("say_hello", "Say hello.", {"type": "object", "properties": {
            "who": {"type": "string"}}}, "greet", lambda args: f"hello {args['who']}"),)


REGISTRY = Registry([PythonRunner, Greeter])


def test_the_registry_lists_the_functions_and_their_tools():
    functions = runner_functions(REGISTRY)
    assert list(functions) == ["say_hello"]
    assert functions["say_hello"].tool()["function"]["name"] == "say_hello"
    assert runner_functions(Registry([PythonRunner])) == {}


def test_a_tool_call_of_a_function_is_a_block_of_its_language():
    reply = Reply("", (ToolCall("c1", "say_hello", json.dumps({"who": "Ada"})),), "tool_calls",
                  None)
    step = steps_from_reply(reply, REGISTRY, tools=True)[0]
    assert (step.language, step.code, step.call_id, step.problem) == ("greet", "hello Ada", "c1",
                                                                      None)


def test_bad_arguments_and_unknown_names_are_problems():
    bad = Reply("", (ToolCall("c1", "say_hello", "[1]"),), "tool_calls", None)
    assert "must be a JSON object" in steps_from_reply(bad, REGISTRY, tools=True)[0].problem
    unknown = Reply("", (ToolCall("c2", "say_bye", "{}"),), "tool_calls", None)
    assert "Unknown tool 'say_bye'" in steps_from_reply(unknown, REGISTRY, tools=True)[0].problem


def test_a_function_call_written_as_text_runs_too():
    reply = Reply('<tool_call>{"name": "say_hello", "arguments": {"who": "Bo"}}</tool_call>', (),
                  "stop", None)
    step = steps_from_reply(reply, REGISTRY)[0]
    assert (step.language, step.code) == ("greet", "hello Bo")
