"""`interp acp`: the settings and flags to an agent an editor runs over stdio (interp.acp);
every failure at start is one line and an exit status, every later one is the editor's error."""

from __future__ import annotations

import logging
import sys

from interp.cli.build import Request, build_policy, build_session, choose_runners, new_log
from interp.cli.process import unexpected
from interp.config.models import ModelMaker
from interp.config.settings import ConfigError, Settings, data_dir, load_settings, no_model_help
from interp.core import exits
from interp.errors import UsageError

NO_SDK = ("interp acp needs the Agent Client Protocol SDK, which is not installed: "
          "pip install 'interp[acp]'")


def _fail(message: str, code: int = exits.USAGE) -> int:
    sys.stderr.write(message.rstrip("\n") + "\n")
    return code


class Conversations:
    """Opens the editor's conversations with the settings of this run (interp.acp.config's
    Conversations): each with its own runners, in the folder the editor names."""

    def __init__(self, settings: Settings, models: ModelMaker, store) -> None:
        self.settings, self.models, self.store = settings, models, store

    def new(self, cwd: str, approver):
        return self._open(Request(), cwd, approver)

    def load(self, session_id: str, cwd: str, approver):
        return self._open(Request(resume=session_id), cwd, approver)

    def switch_model(self, name: str):
        return self.models.switch(name)

    def _open(self, request: Request, cwd: str, approver):
        from languages import default_registry

        from interp.acp.config import Opened

        if not self.settings.model:
            raise UsageError(no_model_help())
        registry = default_registry()
        chosen = choose_runners(self.settings, registry)
        session, notices, warnings = build_session(self.settings, request, approver, self.store,
                                                   registry, self.models(), cwd=cwd)
        if session.log is None:
            session.attach_log(new_log(self.settings, self.store, cwd))
        return Opened(session, tuple(chosen + notices), tuple(warnings), bool(request.resume))


def run_acp(cli: dict) -> int:
    """Serve the editor until it closes standard input; the exit status."""
    try:
        import acp  # noqa: F401  (the SDK, only here)
    except ImportError:
        return _fail(NO_SDK)
    try:
        settings = load_settings(cli)
        config, models = _agent_config(settings)
    except ConfigError as exc:
        return _fail(f"interp acp: {exc}")
    except UsageError as exc:
        return _fail(str(exc))
    for warning in settings.warnings:
        _say(f"warning: {warning}")
    _quiet_sdk_logs(settings.debug)
    from interp.acp.serve import serve_stdio
    from interp.models.litellm.loader import settle

    _say(f"serving the Agent Client Protocol on standard input and output; model "
         f"{settings.model or '(none configured)'}")
    try:
        serve_stdio(config)
    except KeyboardInterrupt:
        return _fail("interp acp: interrupted", exits.INTERRUPTED)
    except Exception as exc:  # the last line of defence
        return unexpected("interp acp", exc, settings.debug)
    finally:
        models.close()
        settle()
    return exits.OK


def _agent_config(settings: Settings):
    """The agent's config and the run's model maker; UsageError for a bad [approval] table."""
    from languages import default_registry

    from interp.acp.config import AgentConfig
    from interp.secrets import secrets_of
    from interp.storage.conversations import ConversationStore

    build_policy(settings, default_registry())  # a bad [approval] table fails here, once
    models = ModelMaker(settings)
    store = ConversationStore(data_dir() / "sessions")
    names = tuple(dict.fromkeys(name for name in (settings.model, *settings.models) if name))
    config = AgentConfig(conversations=Conversations(settings, models, store), store=store,
                         policy=lambda: build_policy(settings, default_registry()),
                         auto_approve=settings.auto_approve, models=names,
                         secrets=tuple(secrets_of(settings)), debug=settings.debug)
    return config, models


def _quiet_sdk_logs(debug: bool) -> None:
    """What the SDK logs goes to stderr as one line (with its traceback only with --debug)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine("interp acp: %(message)s", debug))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


class _OneLine(logging.Formatter):
    def __init__(self, fmt: str, debug: bool) -> None:
        super().__init__(fmt)
        self.debug = debug

    def format(self, record: logging.LogRecord) -> str:
        if not self.debug and record.exc_info:
            error = record.exc_info[1]
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                            "msg": f"{record.getMessage()}: {error!r}",
                                            "args": ()})
        return super().format(record)


def _say(text: str) -> None:
    sys.stderr.write(f"interp acp: {text}\n")
    sys.stderr.flush()
