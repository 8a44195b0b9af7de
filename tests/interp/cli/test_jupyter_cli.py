"""Choosing runners per language, and the real `interp` running blocks in Jupyter kernels:
through a real `jupyter kernelgateway` (one per module, random token) and in a local kernel.

Slow runs are scenarios played concurrently once per module (see helpers.Scenarios); timeouts
are hang guards only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("jupyter_client")
pytest.importorskip("websocket")
pytest.importorskip("matplotlib")

from fake_openai import FakeOpenAI  # noqa: E402
from gateway_server import KernelGateway, gateway_command  # noqa: E402
from helpers import (Scenarios, make_interp_env, model_args, run_interp,  # noqa: E402
                     write_config)
from interp.config.settings import load_settings  # noqa: E402
from interp.secrets import runner_env_remove_for, secrets_of  # noqa: E402

FIGURE = ("import matplotlib.pyplot as plt\nimport pandas as pd\nx = 6\n"
          "plt.plot([1, 2])\nplt.show()\npd.DataFrame({'a': [1, 2]})")


def py(code: str) -> str:
    return f"```python\n{code}\n```"


def events_of(proc) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


# -- settings ----------------------------------------------------------------------------------
@pytest.mark.fast
def test_runner_choices_add_up_per_language(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('gateway_url = "http://gpu:8888"\ngateway_token_env = "GPU_TOKEN"\n'
                   'kernel_start_timeout = 120\n[runners]\npython = "gateway"\nshell = "builtin"\n')
    settings = load_settings({"runners": ("shell=jupyter",)},
                             environ={"INTERP_RUNNERS": "r=jupyter:ir"}, config_path=cfg)
    assert settings.runners == ("python=gateway", "shell=builtin", "r=jupyter:ir",
                                "shell=jupyter")
    assert settings.gateway_url == "http://gpu:8888" and settings.gateway_token_env == "GPU_TOKEN"
    assert settings.kernel_start_timeout == 120.0


@pytest.mark.fast
def test_a_token_in_the_config_file_is_refused(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('gateway_token = "abcdef123456"\n')
    settings = load_settings({}, environ={}, config_path=cfg)
    assert "abcdef123456" not in repr(settings)
    assert any("gateway_token ignored" in w and "INTERP_GATEWAY_TOKEN" in w
               for w in settings.warnings)


@pytest.mark.fast
def test_the_gateway_token_is_a_secret_and_hidden_from_runners(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_TOKEN", "token-abcdef-123")
    settings = load_settings({"gateway_token_env": "GPU_TOKEN"}, environ={},
                             config_path=tmp_path / "none.toml")
    assert "token-abcdef-123" in secrets_of(settings)
    assert "GPU_TOKEN" in runner_env_remove_for(settings)


def test_bad_runner_entry_is_a_usage_error(tmp_path):
    env = make_interp_env(tmp_path)
    with FakeOpenAI() as server:
        proc = run_interp(model_args(server) + ["-y", "--runner", "python=docker", "-e", "hi"], env)
    assert proc.returncode == 2
    assert proc.stderr.startswith("interp: runner 'python=docker': expected LANGUAGE=RUNNER")
    assert "Traceback" not in proc.stderr


# -- real runs ---------------------------------------------------------------------------------
scenario = Scenarios()
SHARED: dict = {}  # the module's gateway, for the scenarios (which get only server and env)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    if gateway_command() is None:
        pytest.skip("jupyter-kernel-gateway is not installed")
    with KernelGateway(tmp_path_factory.mktemp("gateway")) as server:
        yield server


@pytest.fixture(scope="module")
def outcome(request, tmp_path_factory, gateway):
    """outcome(name) -> the results of scenario `name` (its exception, if it raised)."""
    SHARED["gateway"] = gateway
    return scenario.play(request, tmp_path_factory)


def gateway_run(server, env, replies, token, config: str = "") -> dict:
    gateway = SHARED["gateway"]
    env["env"]["INTERP_GATEWAY_TOKEN"] = token
    if config:
        write_config(env, config)
    server.script(replies)
    proc = run_interp(model_args(server) + ["-y", "--json", "--runner", "python=gateway",
                                            "--gateway-url", gateway.url, "-e", "go"], env)
    return {"proc": proc, "gateway": gateway}


@scenario
def on_the_gateway(server, env):
    got = gateway_run(server, env, [py(FIGURE), py("print(x * 7)"),
                                    "```bash\necho local $((1+1))\n```", "Done."],
                      SHARED["gateway"].token)
    return dict(got, export=run_interp(["export", "latest", "-o", "-", "--format", "ipynb"], env))


def test_on_the_gateway(outcome):
    got = outcome("on_the_gateway")
    proc, gateway, env = got["proc"], got["gateway"], got["env"]
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc)
    notice = of_type(events, "notice")[0]["text"]
    assert notice.startswith(f"python blocks run in kernel python3 on the gateway at {gateway.url}")
    assert [n["text"] for n in of_type(events, "notice")].count(
        "python blocks run on a Jupyter gateway: what they do to files there is not "
        "checkpointed (/rewind cannot undo it).") == 1  # said once, at the first block
    displays = of_type(events, "block.display")
    assert [d["kind"] for d in displays] == ["image", "table"]
    figure = Path(displays[0]["path"])
    assert figure.parent == env["cwd"] / "interp-output" and figure.read_bytes()[:4] == b"\x89PNG"
    assert displays[1]["data"]["type"] == "DataFrame"
    outputs = [e["text"] for e in of_type(events, "block.output")]
    assert outputs == ["42\n", "local 2\n"]  # state kept on the gateway; bash ran locally
    system = got["requests"][0]["messages"][0]["content"]
    assert "python blocks run in a Jupyter kernel on a remote server" in system
    saved = "".join(p.read_text() for p in (env["data"] / "interp" / "sessions").glob("*"))
    assert gateway.token not in saved and gateway.token not in proc.stdout
    assert "[figure saved:" in saved
    assert got["export"].returncode == 0 and '"image/png"' in got["export"].stdout


@scenario
def wrong_token(server, env):
    return gateway_run(server, env, [py("print(1)"), "```bash\necho still here\n```", "Done."],
                       "wrong-token-123")


def test_wrong_token(outcome):
    """One clear line for the failed block; the rest of the session goes on."""
    got = outcome("wrong_token")
    proc = got["proc"]
    assert proc.returncode == 0, proc.stderr
    finished = of_type(events_of(proc), "block.finished")
    assert finished[0]["status"] == "error" and "HTTP 401" in finished[0]["error"]
    assert "\n" not in finished[0]["error"] and "wrong-token-123" not in proc.stdout
    assert finished[1]["status"] == "ok"
    assert "HTTP 401" in got["requests"][1]["messages"][-1]["content"]


@scenario
def rules_on_the_gateway(server, env):
    return gateway_run(server, env, [py("import os"), "Fine."], SHARED["gateway"].token,
                       config='[approval]\ndeny = ["python: import os*"]\n')


def test_rules_on_the_gateway(outcome):
    events = events_of(outcome("rules_on_the_gateway")["proc"])
    assert of_type(events, "block.declined")[0].get("policy") is True
    assert not of_type(events, "block.finished")


@scenario
def local_kernel_env(server, env):
    env["env"]["OPENAI_API_KEY"] = "sk-model-key-abcdef"
    server.script([py("import os\nprint(os.environ.get('OPENAI_API_KEY'))"), "Done."])
    return {"proc": run_interp(model_args(server) + ["-y", "--json", "--runner",
                                                     "python=jupyter", "-e", "go"], env)}


def test_local_kernel_env(outcome):
    """The model's key is not in a local kernel's environment."""
    proc = outcome("local_kernel_env")["proc"]
    outputs = [e["text"] for e in of_type(events_of(proc), "block.output")]
    assert outputs == ["None\n"], proc.stderr


def test_ctrl_c_interrupts_a_local_kernel_and_keeps_its_variables(spawn, fake_server):
    from pty_terminal import fenced

    sleeper = "import time\nprint('sleeping', flush=True)\ntime.sleep(100)"
    fake_server.script([fenced("python", "x = 5"), fenced("python", sleeper),
                        fenced("python", "print('x is', x)"), "Done."])
    term = spawn("--runner", "python=jupyter")
    term.expect("python blocks run in the local kernel python3")
    term.task("set x then sleep")
    term.question()
    term.line("y")
    term.question()
    term.line("y")
    term.expect("^sleeping$")
    term.send("\x03")
    term.expect("interrupted")
    term.expect("Stopped: nothing more runs in this turn.")  # the turn ends with the block
    term.task("show x")
    term.question()
    term.line("y")
    term.expect("^x is 5$")
    term.expect("Done.")
    assert term.exit_status() == 0
