"""--output-schema: the answer's JSON value (the whole reply, its one fence, or the first
value in it) checked with jsonschema; an invalid answer is sent back once with the error, and
the task ends with exit status 7 when the last one is still not valid. Sessions run against
the fake OpenAI server (hang guards only)."""

from __future__ import annotations

import json

import pytest

from fake_openai import FakeOpenAI
from session_kit import answer, contents, finished, of, run

from languages import Registry, RunnerConfig
from languages.python import PythonRunner

from interp.core import exits
from interp.core.checks.schema import (SchemaError, check_schema, instruction, json_value,
                                       structured)
from interp.core.session import Session, SessionConfig
from interp.models.reach import model_for

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"},
                                           "unit": {"enum": ["kg", "lb"]}},
          "required": ["total", "unit"], "additionalProperties": False}


@pytest.mark.fast
@pytest.mark.parametrize("text, value", [
    ('{"total": 3, "unit": "kg"}', {"total": 3, "unit": "kg"}),
    ('```json\n{"total": 3, "unit": "kg"}\n```', {"total": 3, "unit": "kg"}),
    ('Here it is: {"total": 3, "unit": "kg"} as asked.', {"total": 3, "unit": "kg"}),
    ("[1, 2]", [1, 2]), ("42", 42),
])
def test_the_json_value_of_an_answer(text, value):
    assert json_value(text) == (value, True)


@pytest.mark.fast
def test_validity_and_the_error_said_in_one_line():
    assert structured('{"total": 3, "unit": "kg"}', SCHEMA).error is None
    wrong = structured('{"total": "3", "unit": "kg"}', SCHEMA)
    assert "'3' is not of type 'number'" in wrong.error and "/total" in wrong.error
    assert structured("about three kilos", SCHEMA).error == "the answer holds no JSON value"


@pytest.mark.fast
def test_a_schema_is_checked_and_quoted_to_the_model():
    check_schema(SCHEMA)
    with pytest.raises(SchemaError, match="not a valid JSON Schema"):
        check_schema({"type": "nonsense"})
    assert json.dumps(SCHEMA) in instruction(SCHEMA)


@pytest.fixture
def session_for(tmp_path):
    made = []

    def make(server, schema=SCHEMA, checks="off") -> Session:
        llm = model_for("openai/fake-model", api_base=server.api_base, api_key="sk-test-1")
        config = SessionConfig(runner=RunnerConfig(cwd=str(tmp_path)), output_schema=schema,
                               checks=checks)
        made.append(Session(llm, config=config, registry=Registry([PythonRunner])))
        return made[-1]

    yield make
    for session in made:
        session.close()


def test_an_invalid_answer_is_sent_back_once_with_the_error(session_for):
    with FakeOpenAI() as server:
        server.script(["About 3 kg.", '{"total": 3, "unit": "kg"}'])
        session = session_for(server)
        events = run(session, "how heavy is it?")
        assert json.dumps(SCHEMA) in contents(server.requests[0])[-1]
        assert "the answer holds no JSON value" in contents(server.requests[1])[-1]
        assert [n["check"] for n in of(events, "notice") if "check" in n] == ["output-schema"]
        assert finished(events) == {"exit_code": 0, "reason": "done"}
        assert events[-1].structured_output == {"total": 3, "unit": "kg"}
        assert answer(events) == '{"total": 3, "unit": "kg"}'
        assert session.structured_output == {"total": 3, "unit": "kg"}


def test_an_answer_never_valid_ends_with_exit_status_7(session_for):
    """Whatever `checks` says (the person asked for it): sent back once, then the end."""
    with FakeOpenAI() as server:
        server.script(['{"total": 3}', '{"total": 3, "unit": "stone"}'])
        events = run(session_for(server, checks="on"), "how heavy is it?")
        assert len(server.requests) == 2
        assert finished(events) == {"exit_code": exits.SCHEMA,
                                    "reason": "answer not valid against the output schema"}
        assert "structured_output" not in events[-1].to_dict()
        assert any("'stone' is not one of" in n["text"] for n in of(events, "notice")
                   if n["level"] == "error")
