"""The local model's server process: llama.cpp's OpenAI-compatible server from xllamacpp.

    python -m interp.models.local.serve '{"model": PATH, "threads": N, ...}'

interp starts this as its child (see interp.models.local.server). It binds 127.0.0.1 on a free port,
loads the model, prints one JSON line on standard output (`{"ready": {...}}` or
`{"error": "..."}`) and serves until its standard input closes, which happens when interp
stops or dies. llama.cpp's own log goes to standard error (interp sends it to a log file).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time
import urllib.request


def _die_with_parent() -> None:
    """On Linux, get SIGKILL when interp dies, even if it is killed (SIGKILL) mid-load."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent is already gone
        os._exit(0)


def _emit(record: dict) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _params(xlc, config: dict):
    """llama.cpp's server parameters for `config` (see LocalConfig.to_child)."""
    p = xlc.CommonParams()
    p.model.path = config["model"]
    p.n_ctx = int(config.get("context") or 0)  # 0: the model's trained context length
    p.n_parallel = 1  # one conversation: the whole context for it
    p.use_jinja = True  # the model's own chat template, so tool calls work where it has them
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = int(config["threads"])
    if config.get("predict"):
        p.n_predict = int(config["predict"])
    if config.get("temperature") is not None:
        p.sampling.temp = float(config["temperature"])
    if config.get("gpu_layers") is not None:
        p.n_gpu_layers = int(config["gpu_layers"])
    p.hostnames, p.port = ["127.0.0.1"], 0  # port 0: the system picks a free one
    p.endpoint_metrics = True  # /metrics: prompt and generation speed for /tokens
    return p


def _props(address: str) -> dict:
    with urllib.request.urlopen(address + "/props", timeout=30) as response:
        return json.load(response)


def serve(config: dict) -> int:
    """Load the model, announce the address, and serve until standard input closes;
    returns only on failure."""
    try:
        import xllamacpp as xlc
    except ImportError as exc:
        _emit({"error": f"cannot import xllamacpp: {exc}"})
        return 1
    started = time.monotonic()
    try:
        server = xlc.Server(_params(xlc, config))
        address = server.listening_address
        props = _props(address)
    except Exception as exc:  # llama.cpp reports a bad model or parameters as RuntimeError
        _emit({"error": str(exc).strip() or type(exc).__name__})
        return 1
    settings = props.get("default_generation_settings") or {}
    caps = props.get("chat_template_caps") or {}
    _emit({"ready": {
        "address": address, "n_ctx": settings.get("n_ctx"),
        "load_seconds": round(time.monotonic() - started, 3),
        "supports_tools": bool(caps.get("supports_tools")),
        "vision": bool((props.get("modalities") or {}).get("vision")),
    }})
    sys.stdin.read()  # returns when interp closes the pipe or dies
    if config.get("log"):  # interp may have died without removing it
        with contextlib.suppress(OSError):
            os.unlink(config["log"])
    os._exit(0)  # now, with the server still up: its threads need no orderly teardown


def main(argv: list[str] | None = None) -> None:
    """Entry point of the child process."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # interp decides; Ctrl-C is not for us
    config = json.loads((argv or sys.argv[1:])[0])
    os._exit(serve(config))


if __name__ == "__main__":
    main()
