"""The local model server and LocalModel, with llama.cpp's real server and a real 135M model."""

from __future__ import annotations

import os
import re
import signal
import socket
import time
import urllib.parse

import pytest

from helpers import hang_guard
from interp.core.history import Entry
from interp.core.prompt.payload import build_payload
from interp.models.base import REPEATING, ModelError, Reply, Slot
from interp.models.local.server import LocalConfig, LocalServer, LocalServerError
from interp.models.local.files import read_gguf
from interp.models.local.model import LocalModel
from interp.models.stream import REPEAT_SPAN
from local_fixtures import needs_xllamacpp, servers_for

pytestmark = needs_xllamacpp
HI = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi."}]


def _config(path, **extra) -> LocalConfig:
    return LocalConfig(path, threads=1, **{"context": 2048, "temperature": 0.0,
                                           "predict": 16, **extra})


def _refused(address: str) -> bool:
    parts = urllib.parse.urlsplit(address)
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=5).close()
    except OSError:
        return True
    return False


@pytest.fixture(scope="module")
def model(smol_gguf, tmp_path_factory):
    """One LocalModel on the 135M model for the module's read-only checks."""
    folder = tmp_path_factory.mktemp("smol")
    link = folder / smol_gguf.name
    os.symlink(smol_gguf, link)
    statuses = []
    local = LocalModel(LocalServer(_config(link), statuses.append, log_dir=folder))
    local.statuses = statuses
    yield local
    local.close()


def test_starts_lazily_on_127_0_0_1_and_reports_its_load(model):
    assert model.server.info is None and not model.server.alive()
    assert servers_for(model.server.config.model) == []
    with hang_guard(120, "the model did not load"):
        assert model.supports_tools() is False  # SmolLM2's template has no tools
    info = model.server.info
    assert urllib.parse.urlsplit(info.address).hostname == "127.0.0.1"
    assert [s.phase for s in model.statuses] == ["loading", "ready"]
    assert "2048 tokens" in model.statuses[-1].text
    assert servers_for(model.server.config.model) == [model.server._proc.pid]


def test_streams_through_litellm_with_usage_and_no_cost(model):
    with hang_guard(120, "no reply"):
        items = list(model.stream(HI))
    reply = items[-1]
    assert isinstance(reply, Reply) and reply.text == "".join(items[:-1])
    assert reply.usage.prompt_tokens > 0 and 0 < reply.usage.completion_tokens <= 16
    assert reply.usage.cost == 0.0


def test_a_reply_ends_before_the_output_the_model_would_make_up(model):
    """Qwen's code-interpreter format writes a block's "output" itself; generation stops there."""
    shown = [{"role": "user", "content": "What is 2+3?"},
             {"role": "assistant", "content": "```python\nprint(2+3)\n```\n```output\n5\n```\n"
                                              "The answer is 5."},
             {"role": "user", "content": "What is 17*23?"}]
    with hang_guard(120, "no reply"):
        reply = list(model.stream(shown))[-1]
    assert reply.text.rstrip().endswith("```") and "output" not in reply.text
    assert "```python" in reply.text  # without the stop, SmolLM2 goes on: ```output 1721 ...


def test_until_ends_the_reply_where_it_says_and_counts_its_tokens(model):
    """The asker's `until` (the end of the first block that runs) closes the request there:
    what the model would write next is never generated, and the server answers the next
    request at once."""
    ask = [{"role": "user", "content": "Write three lines about the sea."}]
    with hang_guard(120, "no reply"):
        whole = list(model.stream(ask))[-1].text
        items = list(model.stream(ask, until=lambda text: text.find(" ", 1) + 1 or None))
    reply = items[-1]
    assert reply.text == whole[:whole.index(" ", 1) + 1] and len(whole) > len(reply.text)
    assert "".join(items[:-1]) == reply.text and reply.finish_reason == "stop"
    assert 0 < reply.usage.completion_tokens < 16 and reply.usage.cost == 0.0
    assert reply.usage.prompt_tokens == model.count_tokens(ask)
    with hang_guard(60, "the server did not answer after a closed request"):
        assert list(model.stream(HI))[-1].text


def test_a_reply_that_keeps_repeating_itself_is_stopped(smol_gguf, own_copy):
    """SmolLM2 asked to go on forever writes "1, 2, " until the output limit; the request
    is closed once its last 600 characters are one short piece over and over."""
    path = own_copy(smol_gguf)
    model = LocalModel(LocalServer(_config(path, predict=1000), log_dir=path.parent))
    ask = [{"role": "user", "content": "List the numbers 1, 2, 1, 2, 1, 2 and keep going forever."}]
    try:
        with hang_guard(180, "no reply"):
            items = list(model.stream(ask))
    finally:
        model.close()
    reply = items[-1]
    assert reply.finish_reason == REPEATING and "".join(items[:-1]) == reply.text
    assert REPEAT_SPAN < len(reply.text) < REPEAT_SPAN + 200 and "1, 2, 1, 2" in reply.text[-20:]
    assert 0 < reply.usage.completion_tokens < 1000


def test_context_window_tokens_and_speed_come_from_llama_cpp(model):
    model.supports_tools()  # loaded
    assert model.context_window() == 2048
    reply = list(model.stream(HI))[-1]
    assert model.count_tokens(HI) == reply.usage.prompt_tokens  # its own template and tokenizer
    speed = model.speed()
    assert speed.generated_tokens > 0 and speed.generation_rate > 0
    assert speed.prompt_tokens > 0 and speed.prompt_rate > 0


def test_the_conversation_is_trimmed_to_the_context(smol_gguf, own_copy):
    path = own_copy(smol_gguf)
    model = LocalModel(LocalServer(_config(path, context=512), log_dir=path.parent))
    history = [Entry({"role": "system", "content": "You are terse."})]
    for i in range(12):
        history += [Entry({"role": "user", "content": f"task {i}"}, task=True),
                    Entry({"role": "assistant", "content": f"```python\nprint({i})\n```"}),
                    Entry({"role": "user", "content": "output " * 60}, output=True)]
    history.append(Entry({"role": "user", "content": "the last task"}, task=True))
    try:
        with hang_guard(180, "no reply"):
            model.supports_tools()  # loaded: exact counts from here on
            assert model.context_window() == 512
            plain = [m.message for m in history]
            assert model.count_tokens(plain) > 512
            payload = build_payload(history, model, vision=False)
            assert model.count_tokens(payload) <= 512
            assert payload[0]["content"] == "You are terse."
            assert payload[-1]["content"] == "the last task"
            assert isinstance(list(model.stream(payload))[-1], Reply)  # llama.cpp takes it
    finally:
        model.close()


def test_context_defaults_to_the_gguf(smol_gguf, own_copy):
    with LocalServer(_config(own_copy(smol_gguf), context=0)) as server, hang_guard(120):
        assert server.wait().n_ctx == read_gguf(smol_gguf).context_length == 8192
        model = LocalModel(server)
        assert model.context_window() == 8192


def test_stop_ends_the_process_and_frees_the_port(smol_gguf, own_copy):
    path = own_copy(smol_gguf)
    server = LocalServer(_config(path))
    with hang_guard(120):
        info = server.wait()
    pid = server._proc.pid
    server.stop()
    assert servers_for(path) == [] and not server.alive() and server.info is None
    assert _refused(info.address)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert server.log_path is None  # its log is removed with it
    server.stop()  # again: harmless


def test_a_server_started_by_a_thread_that_ends_keeps_serving(smol_gguf, own_copy):
    """PR_SET_PDEATHSIG fires when the forking *thread* ends: the worker that started the
    server (an eval mode's pool) must not take it down when it finishes."""
    import threading

    path = own_copy(smol_gguf)
    model = LocalModel(LocalServer(_config(path), log_dir=path.parent))
    replies = []
    worker = threading.Thread(target=lambda: replies.append(list(model.stream(HI))[-1]))
    try:
        with hang_guard(180):
            worker.start()
            worker.join()
            assert isinstance(replies[0], Reply)
            pid = model.server._proc.pid
            time.sleep(0.5)  # the kernel's signal, had it been sent, has arrived by now
            assert model.server.alive() and model.server.died() is None
            assert isinstance(list(model.stream(HI))[-1], Reply)
            assert model.server._proc.pid == pid and servers_for(path) == [pid]
    finally:
        model.close()


def test_a_crash_mid_reply_is_reported_and_the_next_call_restarts(smol_gguf, own_copy):
    path = own_copy(smol_gguf)
    statuses = []
    model = LocalModel(LocalServer(_config(path, predict=64, temperature=1.0),
                                   statuses.append, log_dir=path.parent))
    story = [{"role": "user", "content": "Write a very long story about a lighthouse."}]
    try:
        with hang_guard(180):
            with pytest.raises(ModelError) as caught:
                for item in model.stream(story):
                    if isinstance(item, str) and model.server.alive():
                        os.kill(model.server._proc.pid, signal.SIGKILL)
            assert caught.value.kind == "connection" and caught.value.partial
            assert "server stopped (status -9)" in str(caught.value)
            assert "starts again" in str(caught.value)
            assert isinstance(list(model.stream(HI))[-1], Reply)
            os.kill(model.server._proc.pid, signal.SIGKILL)  # between calls: restarted quietly
            model.server._proc.wait(timeout=30)
            assert isinstance(list(model.stream(HI))[-1], Reply)
        assert "stopped (status -9); loading" in statuses[-2].text
        assert len(servers_for(path)) == 1
    finally:
        model.close()


def test_a_server_that_cannot_be_started_is_one_clear_error(smol_gguf, tmp_path):
    server = LocalServer(_config(smol_gguf), python=str(tmp_path / "no-python"), log_dir=tmp_path)
    with pytest.raises(LocalServerError, match="could not be started: .*no-python"):
        server.start()
    model = LocalModel(LocalServer(_config(smol_gguf), python=str(tmp_path / "no-python"),
                                   log_dir=tmp_path))
    with pytest.raises(ModelError, match="Local model: the local model server could not be"):
        list(model.stream(HI))


def test_a_damaged_model_is_one_clear_error(smol_gguf, tmp_path):
    bad = tmp_path / "cut.gguf"
    with open(smol_gguf, "rb") as src:
        bad.write_bytes(src.read(20_000_000))
    statuses = []
    server = LocalServer(_config(bad), statuses.append, log_dir=tmp_path)
    with hang_guard(120), pytest.raises(LocalServerError) as caught:
        server.wait()
    assert "did not load" in str(caught.value) and "corrupted or incomplete" in str(caught.value)
    assert statuses[-1].phase == "failed" and not server.alive()
    assert server.log_path.exists()  # kept for the person to read
    model = LocalModel(LocalServer(_config(bad), log_dir=tmp_path))
    with hang_guard(120), pytest.raises(ModelError, match="Local model: the local model did not"):
        list(model.stream(HI))
    server.stop()
    assert server.log_path is None


def test_the_server_ends_when_its_parent_dies(smol_gguf, own_copy, tmp_path):
    """interp killed with SIGKILL: the child must not outlive it (stdin EOF, PDEATHSIG)."""
    import subprocess
    import sys

    path = own_copy(smol_gguf)
    script = ("import sys, time\nfrom pathlib import Path\n"
              "from interp.models.local.server import LocalConfig, LocalServer\n"
              f"s = LocalServer(LocalConfig(Path({str(path)!r}), threads=1, context=2048),\n"
              f"                log_dir=Path({str(path.parent)!r}))\n"
              "s.wait(); print('ready', flush=True); time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        with hang_guard(120, "the parent did not report ready"):
            assert parent.stdout.readline().strip() == "ready"
        assert len(servers_for(path)) == 1
        parent.kill()
        parent.wait(timeout=30)
        with hang_guard(60, "the server outlived its parent"):
            while servers_for(path):
                time.sleep(0.1)
    finally:
        parent.kill()
        for pid in servers_for(path):
            os.kill(pid, signal.SIGKILL)


def test_runaway_sampling_is_taken_by_the_server_and_breaks_a_cycle_of_lines(model):
    lines = "\n".join(["print('ok')", "print('no')"] * 12)
    cycle = [{"role": "user", "content": f"Continue this code exactly:\n{lines}"}]
    greedy = {**model.runaway_sampling, "temperature": 0.0}
    with hang_guard(120):
        plain = list(model.stream(cycle, sampling={"temperature": 0.0}))[-1]
        penalised = list(model.stream(cycle, sampling=greedy))[-1]
    assert "print('ok')\nprint('no')\nprint('ok')" in plain.text  # the cycle goes on
    assert "print('ok')\nprint('no')\nprint('ok')" not in penalised.text


def test_a_fresh_request_reuses_nothing_from_the_prompt_cache(model):
    """`interp eval`'s one-request modes: the server processes the whole prompt every time
    (a prefix reused from its cache changes greedy replies), where a plain request reuses it."""
    from interp.eval.modes import ask

    content = "Write a Python function that adds two numbers. " * 8

    def processed(request) -> int:
        before = model.speed().prompt_tokens
        request()
        return model.speed().prompt_tokens - before

    with hang_guard(120):
        ask(model, content)
        fresh = processed(lambda: ask(model, content))
        list(model.stream([{"role": "user", "content": content}], sampling={"temperature": 0.0}))
        cached = processed(lambda: list(model.stream([{"role": "user", "content": content}],
                                                     sampling={"temperature": 0.0})))
    assert fresh >= 60 and cached <= 5, (fresh, cached)


def test_template_sampling_holds_the_reply_to_the_slots(model):
    """answer-format's restatement: llama.cpp takes the grammar and the reply is the slots,
    one a line, each with a value."""
    asked = [{"role": "user", "content": "Say hello."}]
    with hang_guard(120):
        reply = list(model.stream(asked, sampling={**model.template_sampling(
            (Slot("@mean["), Slot("@note["), Slot("@kind[", ("up", "flat")))),
            "temperature": 0.0, "max_tokens": 64}))[-1]
    value = r"(?:[^\[\]\n]|\[[^\[\]\n]*\])+"
    assert re.fullmatch(rf"@mean\[{value}\]\n@note\[{value}\]\n@kind\[(?:up|flat)\]",
                        reply.text), reply.text
