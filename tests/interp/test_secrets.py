"""Secret hygiene: runners do not see the provider's key; no key is written or printed."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from helpers import make_interp_env, model_args, run_interp
from fake_openai import FakeOpenAI
from interp.config.settings import Settings
from interp.cli.start import _report
from interp.secrets import (REDACTED, Redactor, provider_of, provider_variables,
                            runner_env_remove, runner_env_remove_for, secret_values)
from languages import RunnerConfig, default_registry

KEY = "sk-test-123456"  # the --api-key of model_args()
ENV_KEYS = {"OPENAI_API_KEY": "sk-env-openai-abcdef", "INTERP_API_KEY": "sk-env-interp-777777",
            "SAME_AS_KEY": KEY, "KEEP_ME": "visible-value"}
SECRETS = (KEY, ENV_KEYS["OPENAI_API_KEY"], ENV_KEYS["INTERP_API_KEY"])


class Opaque:
    def __str__(self) -> str:
        return "opaque sk-test-123456"


RECORDS = [
    {"type": "message", "message": {"role": "tool", "content": "ok", "n": [1, 2.5, None, True]}},
    {"type": "message", "message": {"content": f"the key is {KEY}!", "_blocks": [{"a": KEY}]}},
    {"type": "event", "data": {KEY: "as a key", "t": ("tu", "ple"), "o": Opaque()}},
    {"type": "event", "data": SimpleNamespace(x=1), "m": {1: "int key"}},
    {"type": "event", "data": {"line": "a\nb\t\"quoted\" é ✓", "nested": {"deep": [[KEY]]}}},
]


@pytest.mark.fast
@pytest.mark.parametrize("secrets", [(), (KEY,), (KEY, "bench-token-123456"),
                                     ('with"quote', "back\\slash", "new\nline")])
@pytest.mark.parametrize("record", RECORDS)
def test_a_redacted_line_is_what_walking_the_record_gives(secrets, record):
    """The shortcut for records that hold no secret writes the same line as the walk."""
    redactor = Redactor(secrets)
    walked = redactor._scrub(json.dumps(redactor.walk(record), ensure_ascii=False, default=str))
    line = redactor.line(record)
    assert line == walked + "\n"
    assert not any(secret in line for secret in redactor.secrets)


@pytest.mark.fast
def test_secrets_json_escapes_are_redacted_inside_strings():
    redactor = Redactor(['with"quote', "tab\tsecret"])
    line = redactor.line({"content": 'a with"quote and tab\tsecret', "k": ["tab\tsecret"]})
    assert json.loads(line) == {"content": f"a {REDACTED} and {REDACTED}", "k": [REDACTED]}


@pytest.mark.fast
@pytest.mark.parametrize("model, provider", [
    ("gpt-4o", "openai"), ("o3-mini", "openai"), ("openai/fake", "openai"),
    ("claude-sonnet-4-5", "anthropic"), ("anthropic/claude-x", "anthropic"),
    ("gemini-1.5-pro", "gemini"), ("ollama/llama3.1", "ollama"), ("Groq/llama3", "groq"),
    ("llama3", None), (None, None), ("", None)])
def test_provider_of(model, provider):
    assert provider_of(model) == provider


@pytest.mark.fast
def test_provider_variables_table_and_fallback():
    assert provider_variables("openai") == ("OPENAI_API_KEY",)
    assert "ANTHROPIC_API_KEY" in provider_variables("anthropic")
    assert provider_variables("together_ai")[0] == "TOGETHERAI_API_KEY"
    assert provider_variables("deepseek") == ("DEEPSEEK_API_KEY", "DEEPSEEK_API_TOKEN")
    assert provider_variables(None) == ()


@pytest.mark.fast
def test_runner_env_remove():
    environ = {"OPENAI_API_KEY": "a" * 10, "ANTHROPIC_API_KEY": "b" * 10, "MY_COPY": KEY,
               "INTERP_API_KEY": "c" * 10, "HOME": "/root"}
    assert runner_env_remove("gpt-4o", KEY, environ=environ) == {
        "OPENAI_API_KEY", "MY_COPY", "INTERP_API_KEY"}
    assert runner_env_remove("anthropic/x", None, environ=environ) == {
        "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "INTERP_API_KEY"}
    assert "OPENAI_API_KEY" not in runner_env_remove("gpt-4o", None, ["OPENAI_API_KEY"], environ)


@pytest.mark.fast
def test_runner_env_remove_for_settings_with_and_without_pass_env():
    assert "OPENAI_API_KEY" in runner_env_remove_for(Settings(model="gpt-4o"))
    passing = SimpleNamespace(model="gpt-4o", api_key=None, pass_env=("OPENAI_API_KEY",))
    assert "OPENAI_API_KEY" not in runner_env_remove_for(passing)


@pytest.mark.fast
def test_secret_values_cover_key_provider_variables_and_api_keys():
    environ = {"HF_TOKEN": "hf_abcdefgh", "OTHER_API_TOKEN": "tok-123456", "HOME": "/root",
               "EMPTY_API_KEY": ""}
    values = secret_values("huggingface/x", KEY, environ)
    assert set(values) == {KEY, "hf_abcdefgh", "tok-123456"}


@pytest.mark.parametrize("removed, shown", [(frozenset({"SECRET_FOR_TEST"}), "unset"),
                                            (frozenset(), "s3cr3t-value")])
def test_runner_does_not_see_removed_variables(monkeypatch, removed, shown):
    monkeypatch.setenv("SECRET_FOR_TEST", "s3cr3t-value")
    runner = default_registry().create("shell", RunnerConfig(env_remove=removed))
    try:
        events = list(runner.run("echo ${SECRET_FOR_TEST:-unset}", timeout=30))
    finally:
        runner.stop()
    assert events[-1].output.text.strip() == shown


@pytest.mark.fast
def test_debug_traceback_and_error_line_are_redacted(capsys):
    def fail():
        raise RuntimeError(f"server said: bad key {KEY}")

    try:
        fail()
    except RuntimeError as exc:
        error = exc
    for debug in (False, True):
        assert _report(error, Settings(model="gpt-4o", api_key=KEY, debug=debug)) == 1
        err = capsys.readouterr().err
        assert KEY not in err and "[REDACTED]" in err
        assert ("Traceback" in err) == debug


# -- the real interp ---------------------------------------------------------------------

BLOCK = ("echo \"openai=${OPENAI_API_KEY:-unset} interp=${INTERP_API_KEY:-unset} "
         "same=${SAME_AS_KEY:-unset} keep=${KEEP_ME:-unset}\"\n"
         "printf 'sk-test-'; sleep 0.3; echo '123456'")


def secret_run(tmp_path, extra: list[str]) -> dict:
    """One `interp -y -e` run whose model echoes the key and whose block prints it in pieces."""
    env = make_interp_env(tmp_path)
    env["env"].update(ENV_KEYS)
    with FakeOpenAI() as server:
        server.script([f"Your key is {KEY}.\n```shell\n{BLOCK}\n```\n",
                       f"Done; the key was {KEY}."])
        proc = run_interp(["-y", *extra, "-e", f"print my key {KEY}", *model_args(server)], env)
        requests = server.requests
    files = sorted((env["data"] / "interp" / "sessions").glob("*.jsonl"))
    return {"proc": proc, "requests": requests, "session": b"".join(f.read_bytes() for f in files)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The --json and the plain one-shot runs, concurrently (each imports litellm)."""
    with ThreadPoolExecutor(2) as pool:
        jobs = {name: pool.submit(secret_run, tmp_path_factory.mktemp(name), extra)
                for name, extra in (("json", ["--json"]), ("plain", []))}
        return {name: job.result() for name, job in jobs.items()}


@pytest.mark.parametrize("mode", ["json", "plain"])
def test_runner_env_has_no_provider_key(runs, mode):
    got = runs[mode]
    assert got["proc"].returncode == 0, got["proc"].stderr
    told = json.dumps(got["requests"][1]["messages"][-1])
    assert "openai=unset interp=unset same=unset keep=visible-value" in told


@pytest.mark.parametrize("mode", ["json", "plain"])
def test_no_key_in_stdout_stderr_or_session_file(runs, mode):
    got = runs[mode]
    proc, session = got["proc"], got["session"]
    assert session and b"[REDACTED]" in session
    for secret in SECRETS:
        assert secret not in proc.stdout and secret not in proc.stderr, secret
        assert secret.encode() not in session, secret
    assert "[REDACTED]" in proc.stdout


def test_json_block_output_is_redacted_across_chunks(runs):
    events = [json.loads(line) for line in runs["json"]["proc"].stdout.splitlines()]
    output = "".join(e["text"] for e in events if e["type"] == "block.output")
    assert "sk-test-" not in output and "[REDACTED]" in output
    assert output.index("keep=visible-value") < output.index("[REDACTED]")
