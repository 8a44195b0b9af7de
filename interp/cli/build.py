"""Building a session, its runners, approval and log from the settings."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from languages import Limits, RunnerConfig, Sandbox, SandboxError, check_sandbox
from languages.process.limits import DEFAULT_MEMORY_MB, DEFAULT_PROCESSES

from interp.approval.policy import Policy, registry_resolver
from interp.approval.rules import RulesError
from interp.cli.resume import resume
from interp.config.models import make_model
from interp.config.settings import Settings, config_dir, default_config_path
from interp.core.files import workspace
from interp.core.prompt.instructions import load_instructions
from interp.core.session import Session, SessionConfig
from interp.errors import UsageError
from interp.secrets import gateway_token_env, runner_env_remove_for, secrets_of
from interp.skills import load_skills
from interp.storage.conversations import ConversationStore


def build_policy(settings: Settings, registry) -> Policy:
    """The approval rules of config.toml's [approval] table; a bad table is a UsageError."""
    try:
        return Policy.from_table(settings.approval, default_config_path(),
                                 registry_resolver(registry))
    except RulesError as exc:
        raise UsageError(f"interp: {exc}") from None


@dataclass(frozen=True)
class Request:
    """What to do: a one-shot task or an interactive session, maybe resuming."""

    task: str | None = None
    resume: str | None = None
    files: tuple[str, ...] = ()  # --file: attached to the task (the first one, interactively)
    output_schema: Any = field(default=None, compare=False)  # --output-schema, read and checked
    output_file: str | None = None  # --output-file: the final answer is written there too


def session_config(settings: Settings, cwd: str, store: ConversationStore, *,
                   resumed: bool = False, output_schema=None,
                   hooks=None) -> tuple[SessionConfig, list[str], list[str]]:
    """The settings of a conversation in `cwd` (the answer checked against `output_schema`,
    the Stop `hooks` on its answers), with the notices and warnings to show first. A resumed
    conversation keeps the prompt it started with: no AGENTS.md files or skills are read for
    it."""
    instructions = (load_instructions(cwd, config_dir())
                    if settings.instructions and not resumed else None)
    skills = load_skills(cwd, config_dir()) if settings.skills and not resumed else None
    config = SessionConfig(max_turns=settings.max_turns, timeout=settings.timeout,
                           tools=settings.tools, runner=replace(runner_config(settings), cwd=cwd),
                           instructions=instructions, compact_at=settings.compact_at / 100,
                           mentions=settings.mentions, checks=settings.checks,
                           max_output=settings.max_output,
                           unwatched=(*workspace.own_folders(store.root.parent),
                                      *workspace.own_streams()), skills=skills,
                           output_schema=output_schema)
    if hooks is not None:
        from interp.cli.integrations import with_stop_hooks

        config = with_stop_hooks(config, hooks)
    notices = startup_notices(config.runner)
    said = [instructions.notice() if instructions is not None else None,
            skills.notice() if skills is not None else None]
    notices += [line for line in said if line]
    return config, notices, skills.warnings() if skills is not None else []


def build_session(settings: Settings, request: Request, approver, store: ConversationStore,
                  registry=None, model=None, cwd: str | None = None, hooks=None
                  ) -> tuple[Session, list[str], list[str]]:
    """The session (with `model`, default make_model(settings)), its blocks run in `cwd`
    (default: here), resumed if asked, with the Stop `hooks` on its answers; also returns
    notices to show first and warnings."""
    cwd = cwd or os.getcwd()
    config, notices, warnings = session_config(settings, cwd, store,
                                               resumed=bool(request.resume),
                                               output_schema=request.output_schema, hooks=hooks)
    resumed = (resume(store, request.resume, cwd, secrets_of(settings))
               if request.resume else None)
    session = Session(model or make_model(settings), approver, config=config, registry=registry,
                      history=resumed.messages if resumed else None,
                      log=resumed.log if resumed else None)
    warnings += session.registry.errors  # language plugins that failed to load
    if settings.checkpoints:
        from interp.checkpoints.recorder import Checkpoints

        session.checkpoints = Checkpoints(store.root.parent / "checkpoints", cwd, store.root)
    if resumed is not None:
        notices.append(resumed.notice)
        warnings += [resumed.warning] if resumed.warning else []
        warnings += resumed.skipped
        session.tell(resumed.note)
        from interp.checkpoints.history import untold_notes

        for note in untold_notes(resumed.log.path):  # `interp rewind` since it last ran
            session.tell(note)
    return session, notices, warnings


def _limit(value: int | None, default: int) -> int | None:
    return default if value is None else (value or None)


def runner_config(settings: Settings) -> RunnerConfig:
    """Runner settings: interpreter, sandbox, limits and the environment without model keys."""
    sandbox = Sandbox(settings.sandbox, network=settings.network)
    try:
        check_sandbox(sandbox, cwd=os.getcwd())
    except SandboxError as exc:
        raise UsageError(f"interp: {exc}") from None
    limits = Limits(memory_mb=_limit(settings.memory_limit, DEFAULT_MEMORY_MB),
                    processes=_limit(settings.process_limit, DEFAULT_PROCESSES))
    kept = max(RunnerConfig.head_chars, -(-(settings.max_output or 0) // 2))  # max_output fits
    return RunnerConfig(python=settings.python, cwd=os.getcwd(), sandbox=sandbox, limits=limits,
                        env_remove=runner_env_remove_for(settings),
                        output_dir=settings.output_dir, head_chars=kept, tail_chars=kept)


def attach_files(session: Session, paths) -> list[str]:
    """Queue files for the next task; returns a notice per file (AttachmentError if one is bad)."""
    from interp.core.files.attachments import AttachmentError, attachment_notice

    try:
        return [attachment_notice(session.attach(path)) for path in paths]
    except AttachmentError as exc:
        raise UsageError(f"interp: --file {exc}") from None


def choose_runners(settings: Settings, registry) -> list[str]:
    """Apply the per-language runner choices (--runner, [runners]); a notice per kernel language."""
    from languages.jupyter.choice import ChoiceError, GatewaySettings, apply_choices

    gateway = GatewaySettings(settings.gateway_url, gateway_token_env(settings),
                              settings.kernel_start_timeout)
    try:
        return apply_choices(registry, settings.runners, gateway)
    except ChoiceError as exc:
        raise UsageError(f"interp: {exc}") from None


def startup_notices(config: RunnerConfig) -> list[str]:
    """What the person should know before anything runs: the Python that runs Python blocks,
    the sandbox and unenforceable limits."""
    from languages.python import choose_python

    python, why = choose_python(config, {**os.environ, **config.env})
    notices = [f"Python blocks run with {python} ({why}); python and pip in shell blocks "
               f"are the same one."]
    if config.sandbox.mode != "off":
        notices.append(f"Code runs in a {config.sandbox.describe()}.")
    if warning := config.limits.warning():
        notices.append(warning)
    return notices


def new_log(settings: Settings, store: ConversationStore, cwd: str | None = None):
    """A new session file, for a conversation in `cwd` (default: here)."""
    return store.create({"model": settings.model, "cwd": cwd or os.getcwd()},
                        secrets_of(settings))


