"""The real `interp mcp` over stdio, driven by the `mcp` SDK's own client: state across calls,
figures as images, approval (rules, elicitation accepted and declined, refusal), progress,
cancellation, time-outs, bad input, and no runner left behind when the client goes."""

from __future__ import annotations

import base64

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from helpers import run_interp, write_config
from mcp_kit import converse, alive, kill_all, stdio_client, text, wait_gone



def test_each_language_keeps_its_state_between_calls_and_the_blocks_are_saved(interp_env):
    async def body():
        async with stdio_client(interp_env, "-y") as client:
            assert client.protocol_version == "2025-11-25"
            calls = [("python", "x = 41"), ("py", "x + 1"), ("shell", "cd /tmp && N=5"),
                     ("bash", "echo $PWD $N"), ("javascript", "let y = 6"), ("js", "y * 7")]
            return [await client.call_tool("run_code", {"language": lang, "code": code})
                    for lang, code in calls]

    results = converse(body)
    assert [r.is_error for r in results] == [False] * 6
    assert "```\n42\n```" in text(results[1])
    assert "/tmp 5" in text(results[3])
    assert "```\n42\n```" in text(results[5])
    assert text(results[5]).endswith("Result: ok.")
    assert results[5].meta["interp/block"]["block"] == 6
    listed = run_interp(["sessions"], interp_env)
    assert "mcp: mcp " in listed.stdout and "MCP client mcp" in listed.stdout
    exported = run_interp(["export", "latest", "-o", "-"], interp_env)
    assert exported.returncode == 0, exported.stderr
    assert "*▶ python block 1*" in exported.stdout and "*▶ javascript block 6*" in exported.stdout
    assert "x + 1" in exported.stdout and "42" in exported.stdout


def test_figures_come_back_as_images_tables_as_text_and_new_files_are_named(interp_env):
    code = ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
            "import pandas as pd\nplt.plot([1, 3, 2]); plt.show()\n"
            "open('notes.txt', 'w').write('hi')\npd.DataFrame({'a': [1, 2], 'b': [3, 4]})")

    async def body():
        async with stdio_client(interp_env, "-y") as client:
            return await client.call_tool("run_code", {"language": "python", "code": code})

    result = converse(body)
    images = [part for part in result.content if part.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data).startswith(b"\x89PNG\r\n\x1a\n")
    said = text(result)
    assert "[figure saved: " in said and "[DataFrame: 2 rows x 2 columns]" in said
    assert "Files created: notes.txt (2 B)" in said
    assert result.meta["interp/block"]["figures"][0].endswith(".png")


def test_interps_own_data_in_the_folder_is_not_named_as_the_codes_files(interp_env):
    work = interp_env["cwd"]
    interp_env["env"].update(XDG_DATA_HOME=str(work / ".local" / "share"),
                             XDG_CACHE_HOME=str(work / ".cache"))

    async def body():
        async with stdio_client(interp_env, "-y") as client:
            return [await client.call_tool("run_code", {"language": "python", "code": code})
                    for code in ("open('a.txt', 'w').write('a')", "open('b.txt', 'w').write('b')")]

    first, second = converse(body)
    assert "Files created: a.txt (1 B)\n" in text(first)
    assert "Files created: b.txt (1 B)\n" in text(second) and ".local" not in text(second)
    assert list((work / ".local" / "share" / "interp" / "sessions").iterdir())


def test_a_block_the_rules_ask_about_is_asked_through_elicitation(interp_env):
    asked: list = []
    answers = [{"answer": "run"}, None, {"answer": "allow-1"}]

    async def elicit(context, params):
        asked.append(params)
        answer = answers[len(asked) - 1]
        if answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=answer)

    async def body():
        async with stdio_client(interp_env, elicitation_callback=elicit) as client:
            ran = await client.call_tool("run_code", {"language": "python", "code": "print(7)"})
            declined = await client.call_tool("run_code", {"language": "shell",
                                                           "code": "touch nope"})
            allowed = await client.call_tool("run_code", {"language": "shell",
                                                          "code": "ls -a"})
            again = await client.call_tool("run_code", {"language": "shell",
                                                        "code": "ls -l /"})
            return ran, declined, allowed, again

    ran, declined, allowed, again = converse(body)
    assert "```\n7\n```" in text(ran) and not ran.is_error
    assert "```python\nprint(7)\n```" in asked[0].message
    assert declined.is_error
    assert text(declined) == ("The block was declined by the user and did not run. Reason: "
                              "The user declined it.")
    assert not (interp_env["cwd"] / "nope").exists()
    assert not allowed.is_error
    assert "Allowed `shell: ls *` from now on (for this session)." in text(allowed)
    assert "usr" in text(again) and len(asked) == 3  # the session rule answered the fourth
    exported = run_interp(["export", "latest", "-o", "-"], interp_env).stdout
    assert "*Not run: declined by the user (The user declined it.)*" in exported



def test_the_approval_form_shows_hidden_characters_and_names_a_malformed_answer(interp_env):
    # conceal (ESC [8m), a carriage return, a right-to-left override and a zero-width space:
    # a form that rendered them raw would show code other than what runs
    code = "echo tidy\x1b[8m; touch owned\x1b[0m\r# ok \u202etxt.exe\u200b"
    asked: list = []

    async def elicit(context, params):
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": ["run"]})

    async def body():
        async with stdio_client(interp_env, elicitation_callback=elicit) as client:
            return await client.call_tool("run_code", {"language": "shell", "code": code})

    result = converse(body)
    message = asked[0].message
    assert not any(ch in message for ch in "\x1b\r\u202e\u200b")
    assert "echo tidy\\e[8m; touch owned\\e[0m\\r# ok \\u202etxt.exe\\u200b" in message
    assert "(hidden characters shown as \\e, \\u…, ␠)" in message
    assert result.is_error and not (interp_env["cwd"] / "owned").exists()
    assert text(result) == ("The block was declined by the user and did not run. Reason: The "
                            "answer is a list (['run']), not one of the choices (run, allow-1, "
                            "allow-2, no); nothing ran.")

def test_without_elicitation_a_block_is_refused_with_the_rule_to_add(interp_env):
    write_config(interp_env, '[approval]\nallow = ["python"]\n')

    async def body():
        async with stdio_client(interp_env) as client:
            allowed = await client.call_tool("run_code", {"language": "python", "code": "1+1"})
            refused = await client.call_tool("run_code", {"language": "shell",
                                                          "code": "ls -la"})
            return allowed, refused

    allowed, refused = converse(body)
    assert "```\n2\n```" in text(allowed)
    assert refused.is_error
    assert text(refused).startswith("The block was denied by policy and did not run. Reason: "
                                    "no rule allows `ls -la`, so the user must approve it, and "
                                    "this MCP client cannot ask the user")
    assert "`interp rules add allow 'shell: ls *'`" in text(refused)


def test_a_deny_rule_wins_over_auto_approve_and_an_ask_rule_still_asks(interp_env):
    write_config(interp_env, '[approval]\ndeny = ["shell: rm *"]\nask = ["python"]\n')
    asked: list = []

    async def elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"answer": "no",
                                                            "reason": "not today"})

    async def body():
        async with stdio_client(interp_env, "-y", elicitation_callback=elicit) as client:
            (interp_env["cwd"] / "keep.txt").write_text("x")
            denied = await client.call_tool("run_code", {"language": "shell",
                                                         "code": "rm -f keep.txt"})
            asked_python = await client.call_tool("run_code", {"language": "python",
                                                               "code": "1"})
            fine = await client.call_tool("run_code", {"language": "shell", "code": "echo ok"})
            return denied, asked_python, fine

    denied, asked_python, fine = converse(body)
    assert (interp_env["cwd"] / "keep.txt").exists()
    assert "deny rule `shell: rm *` matched `rm -f keep.txt`" in text(denied)
    assert text(asked_python) == ("The block was declined by the user and did not run. "
                                  "Reason: not today")
    assert len(asked) == 1 and "ask rule `python`" in asked[0]
    assert "ok" in text(fine) and not fine.is_error


def test_progress_carries_output_and_cancelling_interrupts_the_block_but_keeps_state(
        interp_env):
    seen: list[str] = []
    code = "import time\nprint('tick', flush=True)\ntime.sleep(60)\nprint('after' + ' sleep')"

    async def body():
        async with stdio_client(interp_env, "-y") as client:
            await client.call_tool("run_code", {"language": "python", "code": "x = 1"})
            started = anyio.Event()

            async def progress(value, total, message):
                seen.append(message or "")
                if "tick" in (message or ""):
                    started.set()

            async with anyio.create_task_group() as group:
                async def call():
                    await client.call_tool("run_code", {"language": "python", "code": code},
                                           progress_callback=progress)
                    seen.append("the call returned")

                group.start_soon(call)
                await started.wait()
                group.cancel_scope.cancel()
            after = await client.call_tool("run_code", {"language": "python", "code": "x + 1"})
            return after

    after = converse(body)
    assert any("tick" in message for message in seen)
    assert "the call returned" not in seen
    assert "```\n2\n```" in text(after)  # the interpreter kept x
    exported = run_interp(["export", "latest", "-o", "-"], interp_env).stdout
    assert "*Result: interrupted.*" in exported and "after sleep" not in exported


def test_a_block_past_its_time_limit_is_interrupted_and_reported(interp_env):
    async def body():
        async with stdio_client(interp_env, "-y", "--timeout", "30") as client:
            await client.call_tool("run_code", {"language": "shell", "code": "K=kept"})
            slow = await client.call_tool("run_code", {"language": "shell",
                                                       "code": "echo start; sleep 60",
                                                       "timeout": 1})
            after = await client.call_tool("run_code", {"language": "shell", "code": "echo $K"})
            return slow, after

    slow, after = converse(body)
    assert slow.is_error and "start" in text(slow)
    assert text(slow).endswith("Result: timed out and was stopped.")
    assert "kept" in text(after)


def test_bad_input_gets_one_clear_error_and_the_session_goes_on(interp_env):
    async def body():
        async with stdio_client(interp_env, "-y") as client:
            bad = [await client.call_tool("run_code", arguments) for arguments in (
                {"language": "cobol", "code": "x"}, {"language": "python", "code": 42},
                {"language": "python", "code": "x" * 1_000_001})]
            bad.append(await client.call_tool("rm_rf", {}))
            good = await client.call_tool("run_code", {"language": "python", "code": "6*7"})
            return bad, good

    bad, good = converse(body)
    said = [text(result) for result in bad]
    assert all(result.is_error for result in bad)
    assert said == ["unknown language 'cobol'; available: python, shell, javascript",
                    "run_code: `code` must be a string, not a number",
                    "run_code: the code is 1,000,001 characters long; the limit is 1,000,000",
                    "unknown tool 'rm_rf'; the tools are run_code, interrupt, reset and "
                    "list_languages"]
    assert "```\n42\n```" in text(good)


def test_interrupt_stops_the_running_block_and_reset_forgets_the_state(interp_env):
    async def body():
        async with stdio_client(interp_env, "-y") as client:
            first = await client.call_tool("run_code", {"language": "python",
                                                        "code": "import os\nx = 5\nos.getpid()"})
            nothing = await client.call_tool("interrupt", {})
            results: dict = {}
            started = anyio.Event()

            async def progress(value, total, message):
                started.set()

            async with anyio.create_task_group() as group:
                async def slow():
                    results["slow"] = await client.call_tool(
                        "run_code", {"language": "python",
                                     "code": "import time\nprint('go', flush=True)\n"
                                             "time.sleep(60)"}, progress_callback=progress)

                group.start_soon(slow)
                await started.wait()
                results["interrupt"] = await client.call_tool("interrupt", {})
            kept = await client.call_tool("run_code", {"language": "python", "code": "x"})
            reset = await client.call_tool("reset", {"language": "python"})
            gone = await client.call_tool("run_code", {"language": "python",
                                                       "code": "print(os.getpid())"})
            listed = await client.call_tool("list_languages", {})
            return first, nothing, results, kept, reset, gone, listed

    first, nothing, results, kept, reset, gone, listed = converse(body)
    assert text(nothing) == "Nothing is running."
    assert text(results["interrupt"]).startswith("Interrupted the running python block")
    assert "KeyboardInterrupt" in text(results["slow"])
    assert text(results["slow"]).endswith("Result: interrupted.")
    assert "```\n5\n```" in text(kept)
    assert text(reset).startswith("Restarted python: variables and other state are gone")
    assert "NameError: name 'os' is not defined" in text(gone)
    assert "- python (also: py, python3): Runs Python blocks" in text(listed)
    assert "running, with state from earlier blocks" in text(listed)


def test_a_client_that_leaves_mid_block_leaves_no_runner_behind(interp_env):
    pids: list[int] = []

    async def body():
        started = anyio.Event()

        async def progress(value, total, message):
            started.set()

        with anyio.CancelScope() as scope:
            async with stdio_client(interp_env, "-y") as client:
                shell = await client.call_tool("run_code", {"language": "shell",
                                                            "code": "sleep 300 & echo $$ $!"})
                node = await client.call_tool("run_code", {"language": "js",
                                                           "code": "process.pid"})
                pids.extend(int(word) for word in text(shell).split("```")[1].split())
                pids.append(int(text(node).split("```")[1]))
                assert all(alive(pid) for pid in pids)

                async def slow():
                    await client.call_tool("run_code", {
                        "language": "python",
                        "code": "import os\nprint(os.getpid(), flush=True)\n"
                                "import time\ntime.sleep(300)"},
                        progress_callback=progress)

                async with anyio.create_task_group() as group:
                    group.start_soon(slow)
                    await started.wait()
                    scope.cancel()  # the client goes: its stdin closes mid-block

    try:
        converse(body)
        assert len(pids) == 3
        assert wait_gone(pids) == []
    finally:
        kill_all(pids)


def test_a_client_pinned_to_the_sessionless_revision_is_told_what_to_do(interp_env):
    async def body():
        async with stdio_client(interp_env, "-y", mode="2026-07-28") as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("run_code", {"language": "python", "code": "1"})
            return caught.value

    error = converse(body)
    assert "protocol 2026-07-28 has no sessions: connect with the initialize handshake" in \
        str(error)
