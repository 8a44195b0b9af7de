"""The tools' schemas and the checks on their arguments (bad input gets one clear line)."""

from __future__ import annotations

import pytest

from languages import default_registry

from interp.mcp.tools import (MAX_CODE_CHARS, Interrupt, ListLanguages, Reset, RunCode,
                              ToolInputError, parse_call, tool_specs)

pytestmark = pytest.mark.fast
REGISTRY = default_registry(plugins=False)


def parse(name: str, arguments, timeout: float = 600.0):
    return parse_call(name, arguments, REGISTRY, timeout)


def test_the_four_tools_name_the_languages_and_the_time_limit():
    specs = {spec.name: spec for spec in tool_specs(REGISTRY, 90)}
    assert list(specs) == ["run_code", "interrupt", "reset", "list_languages"]
    run = specs["run_code"].input_schema
    assert run["type"] == "object" and run["required"] == ["language", "code"]
    assert run["properties"]["language"]["enum"] == ["python", "shell", "javascript"]
    assert "bash" in run["properties"]["language"]["description"]
    assert "90" in run["properties"]["timeout"]["description"]
    assert specs["list_languages"].read_only and specs["run_code"].destructive


def test_run_code_takes_an_alias_and_gives_the_canonical_language():
    assert parse("run_code", {"language": "bash", "code": "ls"}) == RunCode("shell", "ls")
    assert parse("run_code", {"language": "JS", "code": "1"}).language == "javascript"


def test_a_timeout_is_never_longer_than_the_servers():
    assert parse("run_code", {"language": "python", "code": "1", "timeout": 5}).timeout == 5
    assert parse("run_code", {"language": "python", "code": "1", "timeout": 1e9},
                 timeout=30).timeout == 30


@pytest.mark.parametrize("arguments, says", [
    ({"language": "cobol", "code": "x"}, "unknown language 'cobol'; available: python, shell, "
                                         "javascript"),
    ({"language": "python", "code": 5}, "`code` must be a string, not a number"),
    ({"language": "python", "code": None}, "`code` must be a string, not null"),
    ({"language": "python", "code": ["a"]}, "`code` must be a string, not an array"),
    ({"language": "python"}, "`code` must be a string, not null"),
    ({"code": "1"}, "`language` must be one of python, shell, javascript"),
    ({"language": 3, "code": "1"}, "`language` must be one of"),
    ({"language": "python", "code": "  \n"}, "`code` is empty"),
    ({"language": "python", "code": "1", "timeout": -1}, "`timeout` must be a positive number"),
    ({"language": "python", "code": "1", "timeout": "9"}, "`timeout` must be a positive number"),
    ({"language": "python", "code": "1", "timeout": True}, "`timeout` must be a positive"),
    ({"language": "python", "code": "1", "timeout": float("nan")}, "`timeout` must be"),
    ({"language": "python", "code": "1", "cwd": "/"}, "unknown argument 'cwd'"),
    ("print(1)", "the arguments must be an object"),
])
def test_bad_arguments_get_one_line_that_says_what_is_wrong(arguments, says):
    with pytest.raises(ToolInputError) as caught:
        parse("run_code", arguments)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_oversized_code_is_refused_with_its_size_and_the_limit():
    with pytest.raises(ToolInputError, match=f"{MAX_CODE_CHARS + 1:,} characters long; the "
                                             f"limit is {MAX_CODE_CHARS:,}"):
        parse("run_code", {"language": "python", "code": "x" * (MAX_CODE_CHARS + 1)})


def test_the_other_tools():
    assert parse("interrupt", None) == Interrupt()
    assert parse("list_languages", {}) == ListLanguages()
    assert parse("reset", {}) == Reset(None)
    assert parse("reset", {"language": "py"}) == Reset("python")
    with pytest.raises(ToolInputError, match="unknown language 'r'"):
        parse("reset", {"language": "r"})
    with pytest.raises(ToolInputError, match="interrupt: unknown argument 'now'; it takes no "
                                             "arguments"):
        parse("interrupt", {"now": True})


def test_an_unknown_tool_names_the_tools():
    with pytest.raises(ToolInputError, match="unknown tool 'execute'; the tools are run_code, "
                                             "interrupt, reset and list_languages"):
        parse("execute", {})
