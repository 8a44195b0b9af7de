"""Raw kernel round trips for bench_jupyter.py: jupyter_client's own blocking client for a local
kernel, and a bare WebSocket (jupyter_client's Session for the messages) for a gateway kernel."""

from __future__ import annotations

import json
import queue
import time
import urllib.request

CODE = "x = 1"


class LocalRaw:
    """A kernel started by jupyter_client's KernelManager, driven by its BlockingKernelClient."""

    def __init__(self, kernel: str = "python3") -> None:
        from jupyter_client import KernelManager

        import subprocess

        self.manager = KernelManager(kernel_name=kernel)
        self.manager.start_kernel(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def execute(self, code: str) -> str:
        return self.client.execute(code, store_history=True, allow_stdin=False)

    def wait_idle(self, msg_id: str, limit: float = 30.0) -> None:
        deadline = time.monotonic() + limit
        while True:
            message = self.client.get_iopub_msg(timeout=max(0.001, deadline - time.monotonic()))
            if (message["parent_header"].get("msg_id") == msg_id and message["msg_type"] == "status"
                    and message["content"]["execution_state"] == "idle"):
                return

    def round_trip(self, code: str = CODE) -> None:
        self.wait_idle(self.execute(code))

    def interrupt(self) -> None:
        self.manager.interrupt_kernel()

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


class GatewayRaw:
    """A kernel created over REST, executed over one WebSocket read in this thread."""

    def __init__(self, url: str, token: str, kernel: str = "python3") -> None:
        import websocket
        from jupyter_client.session import Session

        self.url, self.headers = url, {"Authorization": f"token {token}",
                                       "Content-Type": "application/json"}
        self.kernel_id = self.call("POST", "/api/kernels", {"name": kernel})["id"]
        self.session = Session()
        ws_url = url.replace("http", "ws", 1) + (f"/api/kernels/{self.kernel_id}/channels"
                                                 f"?session_id={self.session.session}")
        self.socket = websocket.create_connection(ws_url, header=[f"Authorization: token {token}"],
                                                  timeout=30)
        self.pending: queue.SimpleQueue = queue.SimpleQueue()
        self.round_trip()  # the first reply shows the channels are up

    def call(self, method: str, path: str, body=None):
        request = urllib.request.Request(self.url + path, method=method, headers=self.headers,
                                         data=json.dumps(body).encode() if body is not None else None)
        with urllib.request.urlopen(request, timeout=30) as answer:
            raw = answer.read()
        return json.loads(raw) if raw.strip() else None

    def execute(self, code: str) -> str:
        from jupyter_client.jsonutil import json_default

        message = self.session.msg("execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": True})
        message["channel"] = "shell"
        self.socket.send(json.dumps(message, default=json_default))
        return message["header"]["msg_id"]

    def wait_idle(self, msg_id: str, limit: float = 60.0) -> None:
        self.socket.settimeout(limit)
        while True:
            message = json.loads(self.socket.recv())
            if (message.get("channel") == "iopub" and message["msg_type"] == "status"
                    and message["parent_header"].get("msg_id") == msg_id
                    and message["content"]["execution_state"] == "idle"):
                return

    def round_trip(self, code: str = CODE) -> None:
        self.wait_idle(self.execute(code))

    def interrupt(self) -> None:
        self.call("POST", f"/api/kernels/{self.kernel_id}/interrupt", {})

    def close(self) -> None:
        self.socket.close()
        self.call("DELETE", f"/api/kernels/{self.kernel_id}")
