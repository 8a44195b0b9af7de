"""The language registry: built-in names and aliases, and runners from entry points."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from helpers import model_args, run_interp
from languages.process.runner import ProcessRunner
from languages.protocol import RunnerConfig
from languages.records import Result
from languages.python import PythonRunner
from languages.registry import ENTRY_POINT_GROUP, Registry, UnknownLanguage, default_registry
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


@pytest.fixture(scope="module")
def registry():
    return default_registry(plugins=False)


@pytest.mark.fast
@pytest.mark.parametrize("tag, name", [
    ("python", "python"), ("py", "python"), ("python3", "python"),
    ("shell", "shell"), ("bash", "shell"), ("sh", "shell"), ("zsh", "zsh"),
    ("javascript", "javascript"), ("js", "javascript"), ("node", "javascript"),
    ("nodejs", "javascript"),
    ("Python", "python"), ("PY", "python"), ("BASH", "shell"), ("Node", "javascript"),
    (" JavaScript ", "javascript"),
])
def test_builtin_names_and_aliases_resolve(registry, tag, name):
    runner = registry.resolve(tag)
    assert runner.name == name
    assert registry.canonical(tag) == name
    assert tag in registry


@pytest.mark.fast
def test_builtin_classes(registry):
    assert registry.resolve("python") is PythonRunner
    assert registry.resolve("bash") is ShellRunner
    assert registry.names()[:3] == ["python", "shell", "javascript"]


@pytest.mark.fast
@pytest.mark.parametrize("tag", ["cobol", "", "pythonn", "java"])
def test_unknown_language_lists_available_names(registry, tag):
    assert tag not in registry
    with pytest.raises(UnknownLanguage) as info:
        registry.resolve(tag)
    message = str(info.value)
    for name in ("python", "shell", "javascript"):
        assert name in message
    assert isinstance(info.value, LookupError)


@pytest.mark.fast
def test_create_returns_an_unstarted_runner_with_the_config(registry):
    config = RunnerConfig(timeout=3.0)
    runner = registry.create("py", config)
    assert isinstance(runner, PythonRunner)
    assert runner.config is config and not runner.alive


@pytest.mark.fast
def test_later_registration_wins():
    class OtherShell(ShellRunner):
        aliases = ("bash",)

    reg = Registry([PythonRunner, ShellRunner])
    reg.register(OtherShell)
    assert reg.resolve("bash") is OtherShell and reg.resolve("sh") is ShellRunner
    assert reg.names() == ["python", "shell"]


# -- entry points ---------------------------------------------------------------------------

TINY_MODULE = '''
"""A tiny third-party language: prints each block upper-cased, numbered across blocks."""
import sys

from languages.process.runner import ProcessRunner

DRIVER = r"""
import json, os, sys
buf, count = b"", 0
while True:
    while b"\\n" not in buf:
        chunk = os.read(3, 65536)
        if not chunk:
            sys.exit(0)
        buf += chunk
    line, _, buf = buf.partition(b"\\n")
    parts = line.decode().split(" ", 2)
    status = {}
    if parts[0] == "R":
        count += 1
        with open(parts[2]) as handle:
            text = handle.read()
        sys.stdout.write("[%d] %s" % (count, text.upper()))
        status = {"exit_code": 0 if text.strip() != "fail" else 2}
    sys.stdout.flush()
    os.write(1, ("__INTERP_%s__%s\\n" % (parts[1], json.dumps(status))).encode())
"""


class TinyRunner(ProcessRunner):
    name = "tinylang"
    aliases = ("tiny", "Shout")
    suffix = ".tiny"

    def argv(self):
        return [sys.executable, "-c", DRIVER]


class NotARunner:
    pass
'''


def _install_plugin(root, dist: str, entries: dict[str, str]) -> None:
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}")


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    (tmp_path / "tinylang_mod.py").write_text(textwrap.dedent(TINY_MODULE))
    (tmp_path / "tinylang_raises.py").write_text("raise RuntimeError('plugin exploded on import')\n")
    _install_plugin(tmp_path, "tinylang", {"tinylang": "tinylang_mod:TinyRunner"})
    _install_plugin(tmp_path, "brokenlang", {
        "missing": "tinylang_no_such_module:Runner",
        "exploding": "tinylang_raises:Runner",
        "nameless": "tinylang_mod:NotARunner",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    for mod in ("tinylang_mod", "tinylang_raises", "tinylang_no_such_module"):
        sys.modules.pop(mod, None)


def test_entry_point_runner_resolves_and_runs(plugins, collect):
    registry = default_registry()
    runner_class = registry.resolve("tinylang")
    assert runner_class.__module__ == "tinylang_mod"
    assert issubclass(runner_class, ProcessRunner)
    assert registry.resolve("TINY") is runner_class and registry.resolve("shout") is runner_class
    assert "tinylang" in registry.names()
    assert registry.resolve("python") is PythonRunner  # built-ins are still there
    runner = registry.create("tiny", RunnerConfig(grace=0.5))
    try:
        out, res = collect(runner, "hello plugin\n")
        assert (out, res.status, res.exit_code) == ("[1] HELLO PLUGIN\n", "ok", 0)
        out, res = collect(runner, "again\n")
        assert out == "[2] AGAIN\n"  # the plugin's process kept its state
        out, res = collect(runner, "fail\n")
        assert (res.status, res.exit_code) == ("error", 2)
        assert isinstance(res, Result)
    finally:
        runner.stop()


@pytest.mark.fast
def test_broken_plugins_are_reported_not_raised(plugins):
    registry = default_registry()
    assert "tinylang" in registry  # a good plugin next to broken ones still loads
    for name in ("missing", "exploding", "nameless"):
        assert name not in registry
    errors = "\n".join(registry.errors)
    assert len(registry.errors) == 3
    assert "'missing'" in errors and "tinylang_no_such_module" in errors
    assert "'exploding'" in errors and "plugin exploded on import" in errors
    assert "'nameless'" in errors and "name" in errors
    with pytest.raises(UnknownLanguage):
        registry.resolve("nameless")


@pytest.mark.fast
def test_plugins_can_be_skipped(plugins):
    registry = default_registry(plugins=False)
    assert "tinylang" not in registry and registry.errors == []


def test_the_cli_reports_broken_plugins_and_goes_on(tmp_path, fake_server, interp_env):
    (tmp_path / "tinylang_raises.py").write_text("raise RuntimeError('plugin exploded on import')\n")
    _install_plugin(tmp_path, "brokenlang", {"exploding": "tinylang_raises:Runner"})
    interp_env["env"]["PYTHONPATH"] = str(tmp_path)
    fake_server.script(["Nothing to run."])
    proc = run_interp(["-y", "-e", "hello", *model_args(fake_server)], interp_env)
    assert proc.returncode == 0, proc.stderr
    assert ("interp: warning: language plugin 'exploding' could not be loaded: "
            "plugin exploded on import") in proc.stderr
    assert "Nothing to run." in proc.stdout
