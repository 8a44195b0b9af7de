"""An answer out of the form the task asks for (the reply check answer-format): sent back
once with the template's lines to copy; a model that can be held to a template (LocalModel's
`template_sampling`) has its restatement held to the slots. Real client, the fake OpenAI
server, real runners."""

from __future__ import annotations

from session_kit import SamplingClient, answer, finished, of, py, run

from interp.models.base import Slot
from interp.models.local.grammar import slots_grammar

TASK = ("Which of 2**10 and 10**3 is larger?\n"
        "Give your final answer in exactly this format: @larger[value]")
# Qwen2.5-Coder-1.5B's answer of this kind (a real transcript's, on another table): the
# value where the slot's name goes, the same again when asked to restate
VALUE_AS_NAME = "@1024[1024]"


class Held(SamplingClient):
    """The client model declaring `template_sampling`, as LocalModel does."""

    def template_sampling(self, slots):
        return {"grammar": slots_grammar(slots)}


def test_the_restatement_is_held_to_the_template_s_slots(server, make_session):
    server.script([py("print(max(2**10, 10**3))"), VALUE_AS_NAME, "@larger[1024]"])
    events = run(make_session(server, tools="off", model_cls=Held), TASK)
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert answer(events) == "@larger[1024]"
    asked = server.requests[2]
    assert asked["messages"][-1]["content"].endswith(
        "the text before each bracket stays as it is:\n@larger[value]")
    assert asked["grammar"] == slots_grammar((Slot("@larger["),)) and asked["seed"] == 1
    assert [r.get("grammar") for r in server.requests[:2]] == [None, None]
    assert [n["check"] for n in of(events, "notice") if n.get("check")] == ["answer-format"]


def test_a_model_that_cannot_be_held_is_only_asked(server, make_session):
    server.script([py("print(max(2**10, 10**3))"), VALUE_AS_NAME, VALUE_AS_NAME])
    events = run(make_session(server, tools="off"), TASK)
    assert finished(events) == {"exit_code": 0, "reason": "done"}  # asked once, then ended
    assert answer(events) == VALUE_AS_NAME
    assert "grammar" not in server.requests[2] and "seed" not in server.requests[2]
    assert server.requests[2]["messages"][-1]["content"].endswith("@larger[value]")


def test_a_slot_s_listed_values_are_the_grammar_s_choices():
    grammar = slots_grammar((Slot("@p["), Slot("@normal[", ("yes", "no"))))
    assert grammar.splitlines()[0] == 'root ::= "@p[" value "]" "\\n" "@normal[" ("yes" | "no") "]"'
