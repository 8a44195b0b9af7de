"""A prompt's blocks as the task (files mentioned by path, embedded ones bounded; what interp
does not take refused in one line), and the editor's answer to a permission request as the
decision (an answer that is not a choice runs nothing)."""

from __future__ import annotations

import pytest
from acp import embedded_text_resource, image_block, resource_block, resource_link_block, \
    text_block
from acp.schema import AllowedOutcome, DeniedOutcome

from interp.acp import prompts
from interp.acp.permission import question
from interp.approval.decision import Proposal

pytestmark = pytest.mark.fast


def test_text_links_and_embedded_files_make_the_task():
    task = prompts.task_text([
        text_block("summarise "), resource_link_block("sales.csv", "file:///w/sales%202.csv"),
        text_block(" and compare with "),
        resource_block(embedded_text_resource("file:///w/notes.md", "x" * 200_000))])
    head, _, attached = task.partition("\n\n")
    assert head == "summarise /w/sales 2.csv and compare with /w/notes.md"
    assert attached.startswith("The content of /w/notes.md:\n(only its first 100,000 of "
                               "200,000 characters)\n```\n")
    assert len(task) < 101_000


@pytest.mark.parametrize("blocks, said", [
    ([text_block("  ")], "the prompt is empty"),
    ([image_block("aGk=", "image/png")], "interp takes text and files in a prompt, not image"),
    ([text_block("x" * 1_000_001)], "the prompt is 1,000,001 characters long"),
])
def test_what_interp_cannot_work_on_is_one_line(blocks, said):
    with pytest.raises(prompts.BadPrompt, match=said):
        prompts.task_text(blocks)


def test_the_answers_of_a_permission_request():
    asked = question(Proposal(4, "shell", "git status -s", why="no rule allows `git status -s`"),
                     lambda tag: "shell" if tag in ("shell", "bash") else None)
    assert [(o.option_id, o.name) for o in asked.options] == [
        ("run-once", "Run it"),
        ("allow-1", "Run it, and allow `shell: git status *` for this session"),
        ("allow-2", "Run it, and allow all shell code for this session"),
        ("reject", "Don't run it")]
    assert asked.tool_call.tool_call_id == "block-4"
    assert "Asked because no rule allows `git status -s`." in \
        asked.tool_call.content[-1].content.text
    pick = lambda option: asked.decision(AllowedOutcome(outcome="selected", option_id=option))
    assert pick("run-once").run and pick("run-once").allow is None
    assert pick("allow-1").allow == ("shell: git status *",)
    assert pick("allow-2").allow == "shell"
    rejected = pick("reject")
    assert not rejected.run and not rejected.stop and rejected.reason is None
    unknown = pick("yes-please")
    assert not unknown.run and unknown.stop and "not one of the choices" in unknown.notice
    cancelled = asked.decision(DeniedOutcome(outcome="cancelled"))
    assert not cancelled.run and cancelled.stop
