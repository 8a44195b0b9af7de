"""A kernel behind a Jupyter gateway (Jupyter Server, Kernel Gateway, Enterprise Gateway).

REST creates, interrupts and deletes the kernel; a WebSocket carries its channels (the JSON
protocol). A reader thread puts every IOPub message on a queue; the runner reads the queue.
"""

from __future__ import annotations

import getpass
import json
import queue
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from .kernel import (DEAD_STATES, KernelError, execute_content, import_error,
                             missing_kernel)

REQUEST_TIMEOUT = 15.0  # seconds for one REST call (creating a kernel gets the start timeout)
_CLOSED = {"msg_type": "status", "content": {"execution_state": "dead"}, "parent_header": {},
           "channel": "iopub", "closed": True}


class GatewayClient:
    """Authenticated JSON requests to a gateway's REST API; errors become one-line KernelErrors."""

    def __init__(self, url: str, token: str | None, token_env: str) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.token_env = token_env

    def headers(self) -> dict[str, str]:
        """Authorization (when there is a token) and JSON."""
        base = {"Content-Type": "application/json"}
        return {**base, "Authorization": f"token {self.token}"} if self.token else base

    def call(self, method: str, path: str, body: Any = None,
             timeout: float = REQUEST_TIMEOUT) -> Any:
        """The decoded JSON answer (None when empty)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers=self.headers())
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                raw = answer.read()
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from None
        except urllib.error.URLError as exc:
            reason = getattr(exc.reason, "strerror", None) or exc.reason
            raise KernelError(f"cannot reach the Jupyter gateway at {self.url}: {reason}") from None
        except (TimeoutError, socket.timeout):
            raise KernelError(f"the Jupyter gateway at {self.url} did not answer within "
                              f"{timeout:g} s") from None
        except OSError as exc:
            raise KernelError(f"cannot reach the Jupyter gateway at {self.url}: {exc}") from None
        try:
            return json.loads(raw) if raw.strip() else None
        except ValueError:
            raise KernelError(f"{self.url} did not answer like a Jupyter gateway "
                              f"({method} {path} returned no JSON)") from None

    def _http_error(self, exc: urllib.error.HTTPError) -> KernelError:
        if exc.code in (401, 403):
            how = (f"check {self.token_env}" if self.token
                   else f"set {self.token_env} to its token")
            return KernelError(f"the Jupyter gateway at {self.url} refused the request "
                               f"(HTTP {exc.code}: wrong or missing token); {how}")
        try:
            detail = json.loads(exc.read() or b"{}").get("message") or exc.reason
        except (ValueError, AttributeError, OSError):
            detail = exc.reason
        line = str(detail).strip().splitlines()[0][:200] if str(detail).strip() else ""
        return KernelError(f"the Jupyter gateway at {self.url} answered HTTP {exc.code}"
                           + (f": {line}" if line else ""))

    def websocket_url(self, path: str) -> str:
        """ws:// or wss:// form of a path on the gateway."""
        parts = urllib.parse.urlsplit(self.url + path)
        scheme = "wss" if parts.scheme == "https" else "ws"
        return urllib.parse.urlunsplit((scheme, *parts[1:]))


class GatewayKernel:
    """A kernel created on a gateway; its channels come over one WebSocket."""

    def __init__(self, client: GatewayClient, name: str | None) -> None:
        self.client = client
        self.name = name
        self.where = f"kernel {name or '(default)'} on the gateway at {client.url}"
        self.language = ""
        self.kernel_id: str | None = None
        self._socket = None
        self._session = None
        self._messages: queue.Queue = queue.Queue()
        self._lost = False

    def start(self, timeout: float) -> None:
        """Create the kernel, connect its channels and wait for its kernel_info_reply."""
        try:
            import websocket
            from jupyter_client.session import Session
        except ImportError as exc:
            raise import_error(exc.name or "websocket-client") from None
        self._pick_kernelspec()
        kernel = self.client.call("POST", "/api/kernels", {"name": self.name, "env": {
            "KERNEL_USERNAME": _user()}}, timeout=max(timeout, REQUEST_TIMEOUT))
        if not isinstance(kernel, dict) or not isinstance(kernel.get("id"), str):
            raise KernelError(f"the Jupyter gateway at {self.client.url} did not create a kernel")
        self.kernel_id = kernel["id"]
        self._session = Session(username=_user())
        path = (f"/api/kernels/{urllib.parse.quote(self.kernel_id)}/channels"
                f"?session_id={self._session.session}")
        header = [f"Authorization: token {self.client.token}"] if self.client.token else []
        try:
            self._socket = websocket.create_connection(self.client.websocket_url(path),
                                                       header=header, timeout=REQUEST_TIMEOUT)
        except (websocket.WebSocketException, OSError) as exc:
            self.shutdown()
            raise KernelError(f"cannot open the channels of the {self.where}: {exc}") from None
        self._socket.settimeout(None)
        threading.Thread(target=self._read, name="interp-gateway-reader", daemon=True).start()
        self._wait_ready(timeout)

    def _pick_kernelspec(self) -> None:
        specs = self.client.call("GET", "/api/kernelspecs")
        if not isinstance(specs, dict) or not isinstance(specs.get("kernelspecs"), dict):
            raise KernelError(f"{self.client.url} did not answer like a Jupyter gateway "
                              "(no kernelspecs)")
        found = specs["kernelspecs"]
        self.name = self.name or specs.get("default")
        if self.name not in found:
            raise missing_kernel(str(self.name), list(found), f"on the gateway at {self.client.url}")
        self.where = f"kernel {self.name} on the gateway at {self.client.url}"
        spec = found[self.name].get("spec") if isinstance(found[self.name], dict) else None
        self.language = str(spec.get("language") or "") if isinstance(spec, dict) else ""

    def _wait_ready(self, timeout: float) -> None:
        request = self._send("kernel_info_request", {}, "shell")
        try:
            while True:
                message = self._messages.get(timeout=timeout)
                if message.get("closed"):
                    raise queue.Empty
                if (message.get("msg_type") == "kernel_info_reply"
                        and message.get("parent_header", {}).get("msg_id") == request):
                    return
        except queue.Empty:
            self.shutdown()
            raise KernelError(f"the {self.where} did not become ready within {timeout:g} s") from None

    def _read(self) -> None:
        """The reader thread: decode each frame and queue it; a closed socket queues _CLOSED."""
        sock = self._socket
        while True:
            try:
                frame = sock.recv()
            except Exception:  # closed, reset or aborted: the kernel's channels are gone
                self._messages.put(_CLOSED)
                return
            if not isinstance(frame, str):
                continue  # binary frames carry buffers (widgets); interp does not use them
            try:
                message = json.loads(frame)
            except ValueError:
                continue
            if isinstance(message, dict):
                self._messages.put(message)

    def _send(self, msg_type: str, content: dict, channel: str) -> str:
        from jupyter_client.jsonutil import json_default

        message = self._session.msg(msg_type, content)
        message["channel"] = channel
        self._socket.send(json.dumps(message, default=json_default))
        return message["header"]["msg_id"]

    def execute(self, code: str, silent: bool = False) -> str:
        """Send an execute_request; its msg_id."""
        try:
            return self._send("execute_request", execute_content(code, silent), "shell")
        except Exception:  # a broken socket: report it like a dead kernel
            self._lost = True
            self._messages.put(_CLOSED)
            return ""

    def next_message(self, timeout: float) -> dict[str, Any] | None:
        """The next IOPub message (shell replies are dropped), or None after `timeout`."""
        try:
            while True:
                message = self._messages.get(timeout=timeout)
                if message.get("channel", "iopub") != "iopub":
                    timeout = 0.0
                    continue
                if (message.get("msg_type") == "status"
                        and message.get("content", {}).get("execution_state") in DEAD_STATES):
                    self._lost = True
                return message
        except queue.Empty:
            return None

    def interrupt(self) -> None:
        """Ask the gateway to interrupt the kernel."""
        if self.kernel_id is not None:
            self.client.call("POST", f"/api/kernels/{self.kernel_id}/interrupt", {}, timeout=5.0)

    def alive(self) -> bool:
        """False once the channels closed or the kernel was seen restarting or dead."""
        return self.kernel_id is not None and not self._lost

    def exit_status(self) -> tuple[int | None, int | None]:
        """Not known for a remote kernel."""
        return None, None

    def pid(self) -> int | None:
        """Not known for a remote kernel."""
        return None

    def shutdown(self) -> None:
        """Close the channels and delete the kernel (errors are ignored: it may be gone)."""
        sock, self._socket = self._socket, None
        if sock is not None:
            try:
                sock.abort()
                sock.shutdown()
            except Exception:  # already closed
                pass
        kernel, self.kernel_id = self.kernel_id, None
        if kernel is not None:
            try:
                self.client.call("DELETE", f"/api/kernels/{kernel}", timeout=5.0)
            except KernelError:
                pass


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "interp"
