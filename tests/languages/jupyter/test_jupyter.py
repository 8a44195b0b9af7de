"""The Jupyter runner against real kernels: a local ipykernel, and one behind a real
`jupyter kernelgateway` started on 127.0.0.1 with a random token (one gateway per module).

Every contract test runs for both kinds; the kernel-start failures each kind can have are
tested on their own. Waits are event-driven with hang guards, never timed assertions.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

pytest.importorskip("jupyter_client")
pytest.importorskip("websocket")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")
pytest.importorskip("pandas")

from gateway_server import KernelGateway, free_port, gateway_command  # noqa: E402
from helpers import hang_guard  # noqa: E402
from languages.records import Display, Output, Result  # noqa: E402
from languages.jupyter import JupyterRunner, KernelChoice  # noqa: E402
from languages.jupyter.kernel import KernelError  # noqa: E402
from languages.jupyter.result import STUCK_NOTE  # noqa: E402
from languages.process.limits import Limits  # noqa: E402
from languages.protocol import RunnerConfig  # noqa: E402
from languages.process.sandbox import Sandbox  # noqa: E402

TOKEN_ENV = "INTERP_TEST_GATEWAY_TOKEN"
SECRET_ENV = "INTERP_TEST_MODEL_KEY"
PNG = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    """A real kernel gateway; its token is in TOKEN_ENV while the module runs."""
    if gateway_command() is None:
        pytest.skip("jupyter-kernel-gateway is not installed")
    with KernelGateway(tmp_path_factory.mktemp("gateway")) as server:
        os.environ[TOKEN_ENV] = server.token
        yield server
        os.environ.pop(TOKEN_ENV, None)


@pytest.fixture(scope="module", params=["local", "gateway"])
def kind(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def choice(kind, request) -> KernelChoice:
    if kind == "local":
        return KernelChoice("python3")
    return KernelChoice("python3", request.getfixturevalue("gateway").url, TOKEN_ENV)


def runner_for(choice: KernelChoice, folder: Path, **config) -> JupyterRunner:
    cls = JupyterRunner.for_language("python", ("py",), choice)
    config.setdefault("grace", 0.5)
    return cls(RunnerConfig(cwd=str(folder), output_dir=str(folder / "figures"), **config))


@pytest.fixture(scope="module")
def shared(choice, tmp_path_factory):
    """One started kernel for the tests that keep it usable; small output bounds."""
    os.environ[SECRET_ENV] = "sk-never-in-the-kernel"
    folder = tmp_path_factory.mktemp("shared")
    runner = runner_for(choice, folder, head_chars=2000, tail_chars=2000,
                        env_remove=frozenset({SECRET_ENV}), limits=Limits(memory_mb=4096),
                        spool_dir=str(folder / "session-spools"))
    with hang_guard(120):
        runner.start()
    yield runner
    runner.stop()
    os.environ.pop(SECRET_ENV, None)


@pytest.fixture
def fresh(choice, tmp_path):
    runners = []

    def make(**config) -> JupyterRunner:
        runners.append(runner_for(choice, tmp_path, **config))
        return runners[-1]

    yield make
    for runner in runners:
        runner.stop()


def interrupt_when(runner, code: str, seen: str, how, **kw) -> tuple[str, Result]:
    """Run code; once `seen` is in the output, call how(runner); (output, Result)."""
    out, result, fired = "", None, False
    with hang_guard(60):
        for event in runner.run(code, **kw):
            if isinstance(event, Output):
                out += event.text
                if seen in out and not fired:
                    fired = True
                    how(runner)
            elif isinstance(event, Result):
                result = event
    return out, result


# -- the contract, for both kinds -------------------------------------------------------------
def test_state_is_kept_and_output_streams(shared, run, tmp_path):
    out, _, res = run(shared, "x = 41\nprint('hi')")
    assert res.ok and out == "hi\n" and res.exit_code is None
    # The block prints `b` only once the test has seen `a` and made the flag file.
    flag = tmp_path / "go"
    code = (f"import os, time\nprint('a', flush=True)\nlimit = time.monotonic() + 60\n"
            f"while not os.path.exists({str(flag)!r}) and time.monotonic() < limit:\n"
            f"    time.sleep(0.01)\nprint('b', os.path.exists({str(flag)!r}))")
    texts = []
    with hang_guard(120):
        for item in shared.run(code):
            if isinstance(item, Output):
                texts.append(item.text)
                flag.touch()
    assert texts == ["a\n", "b True\n"]  # two messages, the first before the block ended
    out, _, res = run(shared, "x + 1")
    assert res.ok and out == "42\n"


def test_error_reports_the_exception_without_escapes(shared, run):
    out, _, res = run(shared, "def f():\n    return 1 / 0\nf()")
    assert res.status == "error" and res.error == "ZeroDivisionError: division by zero"
    assert "ZeroDivisionError" in out and "\x1b" not in out
    assert "error: ZeroDivisionError" in res.summary()


def test_matplotlib_figure_goes_through_the_figure_pipeline(shared, run):
    out, displays, res = run(shared, "import matplotlib.pyplot as plt\n"
                                     "plt.plot([1, 3, 2])\nplt.title('t')\nprint('drawn')",
                             block=17)
    assert res.ok and out.startswith("drawn\n")
    [image] = displays
    assert image.kind == "image" and image.data["mime"] == "image/png"
    path = Path(image.path)
    assert path.parent == Path(shared.config.output_dir) and path.read_bytes().startswith(PNG)
    assert path.name == "figure-17-1.png"  # the session-wide block number
    assert image.text == f"[figure saved: {path}]"
    assert image.data["width"] > 0 and image.data["height"] > 0
    assert res.model_text().endswith(f"[figure saved: {path}]\n")


def test_dataframe_is_a_bounded_table_display(shared, run):
    out, displays, res = run(shared, "import pandas as pd\n"
                                     "df = pd.DataFrame({f'c{i}': range(500) for i in range(30)})\n"
                                     "df")
    assert res.ok and out == ""
    [table] = displays
    assert table.kind == "table" and table.data["type"] == "DataFrame"
    assert table.data["shape"] == [500, 30]
    assert len(table.data["rows"]) == 20 and table.data["row_gap"] == 10
    assert len(table.data["columns"]) == 20 and table.data["col_gap"] == 10
    assert table.text.endswith("[DataFrame: 500 rows x 30 columns]")
    out, displays, res = run(shared, "df.head(2)")
    assert displays[0].data["rows"] == [["0"] * 20, ["1"] * 20]


def test_html_table_becomes_a_table_display(shared, run):
    html = ("<table><thead><tr><th></th><th>name</th><th>n</th></tr></thead><tbody>"
            "<tr><th>a</th><td>x &amp; y</td><td>1</td></tr>"
            "<tr><th>b</th><td>z</td><td>2</td></tr></tbody></table>")
    _, [table], res = run(shared, f"from IPython.display import HTML\nHTML({html!r})")
    assert res.ok and table.kind == "table" and table.data["type"] == "table"
    assert table.data["columns"] == ["name", "n"] and table.data["index"] == ["a", "b"]
    assert table.data["rows"] == [["x & y", "1"], ["z", "2"]]
    assert "x & y" in table.text


def test_output_is_bounded_and_spooled(shared, run):
    out, _, res = run(shared, "for i in range(3000):\n    print('line', i)", block=23)
    assert res.ok and res.output.truncated
    assert res.output.spool_path == str(Path(shared.config.spool_dir) / "block-23-output.txt")
    assert res.output.head.startswith("line 0\n") and res.output.tail.endswith("line 2999\n")
    spooled = Path(res.output.spool_path).read_text()
    assert spooled.count("\n") == 3000 and "omitted" in res.model_text()


def test_interrupt_from_the_run_loop_thread_keeps_state(shared):
    """What a Ctrl-C does: the signal handler calls interrupt() in the thread running run()."""
    list(shared.run("kept = 'yes'"))
    code = "import time\nprint('started', flush=True)\nfor i in range(100):\n    time.sleep(0.5)"
    out, res = interrupt_when(shared, code, "started", lambda r: r.interrupt())
    assert res.status == "interrupted" and res.interrupted and not res.restarted
    assert "KeyboardInterrupt" in out
    assert [e.text for e in shared.run("print(kept)") if isinstance(e, Output)] == ["yes\n"]


def test_interrupt_from_another_thread(shared):
    code = "import time\nprint('started', flush=True)\ntime.sleep(100)"

    def from_thread(runner):
        threading.Thread(target=runner.interrupt).start()

    _, res = interrupt_when(shared, code, "started", from_thread)
    assert res.status == "interrupted" and not res.restarted


def test_timeout_interrupts_and_keeps_state(shared, run):
    list(shared.run("kept = 7"))
    out, _, res = run(shared, "import time\ntime.sleep(30)", timeout=0.5)
    assert res.status == "timeout" and res.timed_out and not res.restarted
    assert res.summary().startswith("timed out")
    out, _, res = run(shared, "print(kept)")
    assert out == "7\n"


def test_timeout_restarts_a_kernel_that_ignores_it_and_death_restarts_too(fresh, run):
    runner = fresh()
    list(runner.run("x = 1"))
    stubborn = ("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                "print('waiting', flush=True)\ntime.sleep(60)")
    out, _, res = run(runner, stubborn, timeout=0.5)
    assert res.status == "timeout" and res.restarted and STUCK_NOTE in res.notes
    assert "restarted" in res.summary() and out == "waiting\n"
    out, _, res = run(runner, "print('x' in dir())")
    assert res.ok and out == "False\n"
    list(runner.run("y = 2"))
    out, _, res = run(runner, "import os\nprint('bye', flush=True)\nos.kill(os.getpid(), 9)")
    assert res.status == "died" and res.died and res.restarted and res.state_lost
    assert "restarted" in res.summary()
    out, _, res = run(runner, "print('y' in dir())")
    assert res.ok and out == "False\n"


def test_missing_kernelspec_is_one_line(choice, tmp_path):
    missing = KernelChoice("no-such-kernel", choice.gateway_url, choice.token_env)
    runner = runner_for(missing, tmp_path)
    with hang_guard(60), pytest.raises(KernelError) as caught:
        list(runner.run("1"))
    text = str(caught.value)
    assert "no Jupyter kernel named 'no-such-kernel'" in text and "python3" in text
    assert "\n" not in text
    runner.stop()


# -- local kernels -----------------------------------------------------------------------------
def test_local_kernel_does_not_see_removed_variables(shared, kind, run):
    if kind != "local":
        pytest.skip("env scrubbing applies to local kernels only")
    out, _, _ = run(shared, f"import os\nprint(os.environ.get({SECRET_ENV!r}))")
    assert out == "None\n"


def test_local_kernel_has_the_memory_limit(shared, kind, run):
    if kind != "local":
        pytest.skip("limits apply to local kernels only")
    out, _, _ = run(shared, "import resource\nprint(resource.getrlimit(resource.RLIMIT_DATA)[0] >> 20)")
    assert out == "4096\n"


def test_local_kernel_death_between_blocks_is_reported(tmp_path, run, pid_gone):
    runner = runner_for(KernelChoice("python3"), tmp_path)
    try:
        out, _, _ = run(runner, "import os\nz = 1\nprint(os.getpid())")
        os.kill(int(out), 9)
        assert pid_gone(int(out), 30)
        out, _, res = run(runner, "print('z' in dir())")
        assert res.ok and out == "False\n" and res.restarted
        assert any("died after the previous block" in note for note in res.notes)
    finally:
        runner.stop()


def test_stop_ends_the_kernel(kind, fresh, run, pid_gone, request):
    runner = fresh()
    out, _, _ = run(runner, "import os\nprint(os.getpid())")
    kernel_id = runner._kernel.kernel_id if kind == "gateway" else None
    runner.stop()
    assert pid_gone(int(out), 30)
    if kind == "gateway":
        assert kernel_id not in request.getfixturevalue("gateway").kernel_ids()


def test_local_kernels_refuse_the_sandbox(tmp_path):
    runner = JupyterRunner.for_language("python", (), KernelChoice("python3"))(
        RunnerConfig(cwd=str(tmp_path), sandbox=Sandbox("workspace")))
    with pytest.raises(KernelError, match="sandbox does not cover local Jupyter kernels"):
        runner.start()
    runner.stop()


# -- gateway failures --------------------------------------------------------------------------
def test_wrong_token_is_one_clear_line(gateway, tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_TEST_BAD_TOKEN", "not-the-token")
    runner = runner_for(KernelChoice("python3", gateway.url, "INTERP_TEST_BAD_TOKEN"), tmp_path)
    with hang_guard(30), pytest.raises(KernelError) as caught:
        runner.start()
    assert "HTTP 401" in str(caught.value) and "INTERP_TEST_BAD_TOKEN" in str(caught.value)
    assert "not-the-token" not in str(caught.value) and "\n" not in str(caught.value)
    monkeypatch.delenv("INTERP_TEST_BAD_TOKEN")
    with hang_guard(30), pytest.raises(KernelError, match="set INTERP_TEST_BAD_TOKEN"):
        runner.start()


def test_unreachable_gateway_is_one_clear_line(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    runner = runner_for(KernelChoice("python3", url, TOKEN_ENV), tmp_path)
    with hang_guard(30), pytest.raises(KernelError) as caught:
        runner.start()
    assert str(caught.value).startswith(f"cannot reach the Jupyter gateway at {url}")
    assert "\n" not in str(caught.value)


def test_displays_are_events_before_the_result(shared):
    evs = list(shared.run("import matplotlib.pyplot as plt\nplt.plot([1])\nplt.show()\n"
                          "print('after')"))
    kinds = [type(e).__name__ for e in evs]
    assert kinds[-1] == "Result" and kinds[-2] == "Display" and "Output" in kinds
    assert tuple(e for e in evs if isinstance(e, Display)) == evs[-1].displays
