"""The real `interp acp` driven by the `agent-client-protocol` SDK's client side, as Zed runs
it, against the fake OpenAI server: a turn streamed as message chunks and tool calls with live
output, approval through permission requests (once, always for a prefix, reject), cancel as
Esc (the block interrupted, the runner's state kept; a model call and a question given up),
modes and models, saved conversations listed and loaded."""

from __future__ import annotations

import asyncio
import re

import pytest
from acp import RequestError, text_block

from acp_kit import GUARD, EditorClient, acp_agent
from helpers import run_interp, wait_gone, write_config
from pty_terminal import fenced


def converse(body):
    """Run an async test body under the hang guard."""
    async def guarded():
        return await asyncio.wait_for(body(), 3 * GUARD)

    return asyncio.run(guarded())


def test_a_turn_streams_its_reply_and_each_block_as_a_tool_call_with_its_output(
        interp_env, fake_server):
    skills = interp_env["cwd"] / ".agents" / "skills"
    for name, front in (("csv-report", "name: csv-report\ndescription: Summarise a CSV.\n"),
                        ("broken", "name: broken\n")):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(f"---\n{front}---\nSteps.\n")
    fake_server.script([fenced("python", "x = 6 * 7\nfor i in range(3):\n    print(x + i)"),
                        "The answer is 42."])
    client = EditorClient(answers=["run-once"])

    async def body():
        async with acp_agent(interp_env, fake_server, client=client) as agent:
            initialized = await agent.request(agent.conn.initialize(protocol_version=1))
            session = await agent.request(agent.conn.new_session(
                cwd=str(interp_env["cwd"]), mcp_servers=[]))
            ended = await agent.prompt(session.session_id, "compute 6*7")
            return initialized, session, ended, agent.said()

    initialized, session, ended, said = converse(body)
    assert initialized.agent_info.name == "interp"
    assert initialized.agent_capabilities.load_session is True
    assert ended.stop_reason == "end_turn"
    assert "The answer is 42." in client.message()
    assert "```python\nx = 6 * 7" in client.message()  # streamed as it came
    first = client.calls("block-1")[0]
    assert (first.session_update, first.kind, first.status) == ("tool_call", "execute", "pending")
    assert first.title == "python block 1: x = 6 * 7 …"
    assert first.raw_input == {"language": "python", "code": "x = 6 * 7\nfor i in range(3):\n"
                                                              "    print(x + i)"}
    assert [u.status for u in client.calls("block-1")][:2] == ["pending", "in_progress"]
    assert client.status("block-1") == "completed"
    assert "```\n42\n43\n44\n```" in client.shown("block-1")
    assert client.shown("block-1").endswith("Result: ok")
    call, options = client.asked[0]
    assert call.tool_call_id == "block-1"
    assert [(o.option_id, o.kind) for o in options] == [
        ("run-once", "allow_once"), ("allow-1", "allow_always"), ("reject", "reject_once")]
    assert options[1].name == "Run it, and allow all python code for this session"
    assert client.kinds().index("tool_call") < len(client.kinds()) - 1
    assert "serving the Agent Client Protocol on standard input and output" in said
    assert "Traceback" not in said
    listed = run_interp(["sessions"], interp_env)
    assert session.session_id in listed.stdout and "compute 6*7" in listed.stdout
    assert "- csv-report: Summarise a CSV." in fake_server.requests[0]["messages"][0]["content"]
    assert client.message().startswith(f"\n\n> Warning: skill skipped: "
                                       f"{skills / 'broken' / 'SKILL.md'}: its front matter has "
                                       f"no description")
    assert "skill skipped" in said  # and in the editor's log of the agent


def test_always_allow_a_prefix_then_reject_which_ends_the_turn(interp_env, fake_server):
    fake_server.script([fenced("shell", "ls -la"), fenced("shell", "ls /"),
                        fenced("shell", "rm -rf build"), "Not reached."])
    client = EditorClient(answers=["allow-1", "reject"])

    async def body():
        async with acp_agent(interp_env, fake_server, client=client) as agent:
            session_id = await agent.start(interp_env["cwd"])
            return await agent.prompt(session_id, "look around")

    ended = converse(body)
    assert ended.stop_reason == "end_turn"
    prefix = client.asked[0][1][1]
    assert (prefix.option_id, prefix.name) == ("allow-1", "Run it, and allow `shell: ls *` "
                                                          "for this session")
    assert [call.tool_call_id for call, _ in client.asked] == ["block-1", "block-3"]
    assert client.status("block-2") == "completed"  # allowed by the rule: not asked
    assert "Allowed `shell: ls *` from now on (for this session)." in "".join(
        u.content.text for u in client.updates if u.session_update == "agent_thought_chunk")
    assert client.status("block-3") == "failed" and "Not run." in client.shown("block-3")
    assert len(fake_server.requests) == 3  # rejected without a reason: the model is not asked


def test_cancel_interrupts_the_block_and_the_runner_keeps_its_state(interp_env, fake_server):
    fake_server.script([fenced("python", "kept = 'still here'\nimport time\nprint('sleeping')\n"
                               "time.sleep(60)"),
                        fenced("python", "import os\nprint(kept, os.getpid())"), "Done."])
    client = EditorClient(answers=["allow-1"])

    async def body():
        async with acp_agent(interp_env, fake_server, client=client) as agent:
            session_id = await agent.start(interp_env["cwd"])
            turn = asyncio.ensure_future(agent.prompt(session_id, "sleep"))
            while "```\nsleeping" not in client.shown("block-1"):  # the output is live
                await asyncio.sleep(0.05)
            await agent.conn.cancel(session_id=session_id)
            stopped = await turn
            again = await agent.prompt(session_id, "print kept")
            return stopped, again

    stopped, again = converse(body)
    assert stopped.stop_reason == "cancelled"
    assert client.status("block-1") == "failed"
    assert "interrupted" in client.shown("block-1")
    assert again.stop_reason == "end_turn"
    pid = re.search(r"```\nstill here (\d+)\n```", client.shown("block-2")).group(1)
    assert "stopped" in fake_server.requests[1]["messages"][-1]["content"]  # the model is told
    assert wait_gone([int(pid)]) == []  # the editor went: its runners went with it


def test_cancel_gives_up_a_model_call_and_a_question(interp_env, fake_server):
    fake_server.script([{"text": "late", "delay": 50}, fenced("shell", "echo hi"), "Fine."])
    client = EditorClient(answers=["wait"])

    async def body():
        async with acp_agent(interp_env, fake_server, client=client) as agent:
            session_id = await agent.start(interp_env["cwd"])
            waiting = asyncio.ensure_future(agent.prompt(session_id, "say something"))
            while not fake_server.requests:
                await asyncio.sleep(0.05)
            await agent.conn.cancel(session_id=session_id)
            first = await waiting
            asking = asyncio.ensure_future(agent.prompt(session_id, "say hi"))
            await asyncio.wait_for(client.asked_event.wait(), GUARD)
            await agent.conn.cancel(session_id=session_id)
            second = await asking
            return first, second

    first, second = converse(body)
    assert (first.stop_reason, second.stop_reason) == ("cancelled", "cancelled")
    assert client.status("block-1") == "failed"


def test_modes_and_models_are_offered_and_switched(interp_env, fake_server):
    write_config(interp_env, 'models = ["openai/other-model"]\n')
    fake_server.script([fenced("shell", "echo auto"), "Ran it.", "From the other model."])
    client = EditorClient()

    async def body():
        async with acp_agent(interp_env, fake_server, client=client) as agent:
            await agent.request(agent.conn.initialize(protocol_version=1))
            session = await agent.request(agent.conn.new_session(
                cwd=str(interp_env["cwd"]), mcp_servers=[]))
            await agent.request(agent.conn.set_session_mode(session_id=session.session_id,
                                                            mode_id="auto"))
            auto = await agent.prompt(session.session_id, "run it")
            switched = await agent.request(agent.conn.set_config_option(
                config_id="model", session_id=session.session_id, value="openai/other-model"))
            await agent.prompt(session.session_id, "hello")
            errors = []
            for call in (agent.conn.set_session_mode(session_id=session.session_id,
                                                     mode_id="yolo"),
                         agent.conn.set_config_option(config_id="model",
                                                      session_id=session.session_id,
                                                      value="gpt-unknown")):
                with pytest.raises(RequestError) as caught:
                    await agent.request(call)
                errors.append(str(caught.value.data or caught.value))
            return session, auto, switched, errors

    session, auto, switched, errors = converse(body)
    assert session.modes.current_mode_id == "ask"
    assert [m.id for m in session.modes.available_modes] == ["ask", "auto"]
    mode, model = session.config_options
    assert (mode.id, mode.category, mode.current_value) == ("mode", "mode", "ask")
    assert (model.id, model.category, model.current_value) == ("model", "model",
                                                                "openai/fake-model")
    assert [o.value for o in model.options] == ["openai/fake-model", "openai/other-model"]
    assert auto.stop_reason == "end_turn" and client.asked == []
    assert client.status("block-1") == "completed"
    assert [o.current_value for o in switched.config_options] == ["auto", "openai/other-model"]
    assert fake_server.requests[-1]["model"] == "other-model"
    assert "unknown mode 'yolo'" in errors[0]
    assert "model 'gpt-unknown' is not one of openai/fake-model, openai/other-model" in errors[1]


def test_a_saved_conversation_is_listed_and_loaded_with_its_history(interp_env, fake_server):
    fake_server.script([fenced("python", "total = 40 + 2\nprint(total)"), "It is 42.",
                        fenced("python", "print(total)"), "Gone."])
    first, second = EditorClient(answers=["run-once"]), EditorClient(answers=["run-once"])

    async def body():
        async with acp_agent(interp_env, fake_server, client=first) as agent:
            session_id = await agent.start(interp_env["cwd"])
            await agent.prompt(session_id, "add 40 and 2")
        async with acp_agent(interp_env, fake_server, client=second) as agent:
            await agent.request(agent.conn.initialize(protocol_version=1))
            listed = await agent.request(agent.conn.list_sessions(cwd=str(interp_env["cwd"])))
            loaded = await agent.request(agent.conn.load_session(
                cwd=str(interp_env["cwd"]), session_id=session_id, mcp_servers=[]))
            replayed = list(second.updates)
            ended = await agent.prompt(session_id, "print it again")
            return session_id, listed, loaded, replayed, ended

    session_id, listed, loaded, replayed, ended = converse(body)
    assert [(s.session_id, s.title) for s in listed.sessions] == [(session_id, "add 40 and 2")]
    assert loaded.modes.current_mode_id == "ask"
    kinds = [u.session_update for u in replayed]
    assert kinds == ["user_message_chunk", "agent_message_chunk", "tool_call",
                     "agent_message_chunk"]
    assert replayed[0].content.text == "add 40 and 2"
    call = replayed[2]
    assert (call.tool_call_id, call.status) == ("block-1", "completed")
    assert "```\n42\n```" in "\n".join(part.content.text for part in call.content)
    assert ended.stop_reason == "end_turn"
    assert second.calls("block-2")  # block numbers go on
    told = fake_server.requests[2]["messages"][-1]["content"]
    assert "Runner state was not restored" in told


def test_bad_requests_get_one_clear_error_each(interp_env, fake_server):
    async def body():
        async with acp_agent(interp_env, fake_server) as agent:
            await agent.request(agent.conn.initialize(protocol_version=1))
            errors = []
            for call in (agent.conn.new_session(cwd="relative/path", mcp_servers=[]),
                         agent.conn.new_session(cwd=str(interp_env["cwd"] / "missing"),
                                                mcp_servers=[]),
                         agent.conn.prompt(session_id="nope", prompt=[text_block("hi")]),
                         agent.conn.load_session(cwd=str(interp_env["cwd"]),
                                                 session_id="20200101-000000-abcdef",
                                                 mcp_servers=[])):
                with pytest.raises(RequestError) as caught:
                    await agent.request(call)
                errors.append(str(caught.value))
            session_id = await agent.start(interp_env["cwd"])
            with pytest.raises(RequestError) as empty:
                await agent.request(agent.conn.prompt(session_id=session_id,
                                                      prompt=[text_block("  ")]))
            return errors, str(empty.value), agent.said()

    errors, empty, said = converse(body)
    assert "the working folder must be an absolute path, not 'relative/path'" in errors[0]
    assert "does not exist or is not a folder" in errors[1]
    assert "there is no session 'nope'" in errors[2]
    assert "no saved session matches '20200101-000000-abcdef'" in errors[3]
    assert empty == "the prompt is empty"
    assert "Traceback" not in said


def test_no_model_and_a_failing_model_are_the_editors_errors(interp_env, fake_server):
    fake_server.script([{"status": 401, "fail_times": 9}])

    async def body():
        async with acp_agent(interp_env, fake_server, model=False) as agent:
            await agent.request(agent.conn.initialize(protocol_version=1))
            with pytest.raises(RequestError) as no_model:
                await agent.request(agent.conn.new_session(cwd=str(interp_env["cwd"]),
                                                           mcp_servers=[]))
        async with acp_agent(interp_env, fake_server) as agent:
            session_id = await agent.start(interp_env["cwd"])
            with pytest.raises(RequestError) as failed:
                await agent.prompt(session_id, "hello")
            return str(no_model.value), str(failed.value), agent.said()

    no_model, failed, said = converse(body)
    assert no_model.startswith("No model is configured.")
    assert failed.startswith("Authentication failed for openai/fake-model")
    assert "sk-test-123456" not in failed and "Traceback" not in said
