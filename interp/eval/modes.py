"""The three feedback modes: one problem in, one result record out.

- none: one reply; its sanitised code is scored.
- self: interp's own loop (auto-approved runners, sandboxed, no network) for up to K model
  calls; the model sees only the prompt and its own runs; its last code is scored.
- oracle: `self`, then the hidden tests' first failure fed back once into the same session,
  which goes on for up to K more model calls.
- oci: OpenCodeInterpreter's own oracle protocol, replayed: `none`'s request, then the first
  hidden-test failure fed back once in a second single-message request.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from languages import Limits, RunnerConfig, Sandbox

from interp.core import events as ev
from interp.core.history import Entry, provider_messages
from interp.eval.data import Problem
from interp.eval.folders import fixed_folder
from interp.eval.prompts import instruction, oracle_feedback, self_task, with_feedback
from interp.eval.results import Outcome, Spend
from interp.eval.sanitize import defines, parses, solution_code
from interp.eval.scoring import check
from interp.models.base import HandedOver, Model, ModelError, Reply, Retrying, declared_sampling

MODES = ("none", "self", "oracle", "oci")


@dataclass(frozen=True)
class ModeConfig:
    """What every mode needs besides the problem."""

    plus: bool = False  # also run EvalPlus's extra tests
    turns: int = 4  # self, oracle: most model calls per problem (per feedback round in oracle)
    block_timeout: float = 60.0  # self: seconds per code block
    sandbox: bool = True  # self: run the loop's code in bubblewrap (no network)
    env_remove: frozenset[str] = field(default_factory=frozenset)
    checks: str | tuple[str, ...] = "auto"  # self, oracle: the reply checks (interp/core/checks)


def ask(model: Model, content: str) -> Reply:
    """One single-message request, its reply independent of the requests before it where the
    model can make it so (its "fresh" sampling); the complete reply."""
    reply, parts = None, []
    messages, sampling = [{"role": "user", "content": content}], declared_sampling(model, "fresh")
    items = (model.stream(messages, None, sampling=sampling) if sampling
             else model.stream(messages, None))
    for item in items:
        if isinstance(item, Reply):
            reply = item
        elif isinstance(item, Retrying):  # a retry: text streamed so far may start over
            parts = [] if item.restart else parts
        elif not isinstance(item, HandedOver):
            parts.append(item)
    return reply or Reply("".join(parts), (), None, None)


def solve(mode: str, problem: Problem, model: Model, config: ModeConfig) -> Outcome:
    """Run one problem in one mode; model errors end up in the outcome, not raised."""
    started = time.monotonic()
    try:
        outcome = {"none": _none, "self": _self, "oracle": _oracle,
                   "oci": _oci}[mode](problem, model, config)
    except Exception as exc:  # a broken runner or sandbox: recorded, retried on the next run
        outcome = Outcome.failed_call([], Spend(), f"{type(exc).__name__}: {exc}")
    return outcome.finish(time.monotonic() - started)


def _generation(problem: Problem, model: Model, request: str, spend: Spend, config: ModeConfig):
    """Ask, sanitise, score: (turn record, code, verdict)."""
    reply = ask(model, request)
    spend.add(reply.usage)
    code = solution_code(reply.text, problem.entry_point, problem.prompt)
    verdict = check(problem, code, plus=config.plus)
    return {"request": request, "reply": reply.text, "code": code,
            "check": verdict.to_dict()}, code, verdict


def _none(problem: Problem, model: Model, config: ModeConfig) -> Outcome:
    spend, turns = Spend(), []
    try:
        turn, code, verdict = _generation(problem, model, instruction(problem), spend, config)
    except ModelError as exc:
        return Outcome.failed_call(turns, spend, str(exc), kind=exc.kind)
    turns.append(turn)
    return Outcome.scored(turns, spend, code, verdict)


def _oci(problem: Problem, model: Model, config: ModeConfig) -> Outcome:
    spend, turns = Spend(), []
    request = instruction(problem)
    try:
        turn, code, verdict = _generation(problem, model, request, spend, config)
        turns.append(turn)
        if verdict.passed:
            return Outcome.scored(turns, spend, code, verdict)
        second = with_feedback(request, turn["reply"], verdict.feedback)
        reply = ask(model, second)
    except ModelError as exc:
        return Outcome.failed_call(turns, spend, str(exc), kind=exc.kind)
    spend.add(reply.usage)
    new_code = solution_code(reply.text, problem.entry_point, problem.prompt)
    if not new_code:  # OpenCodeInterpreter stops when the second answer has no code
        turns.append({"request": second, "reply": reply.text, "code": "", "check": None})
        return Outcome.scored(turns, spend, code, verdict)
    new_verdict = check(problem, new_code, plus=config.plus)
    turns.append({"request": second, "reply": reply.text, "code": new_code,
                  "check": new_verdict.to_dict()})
    return Outcome.scored(turns, spend, new_code, new_verdict, first=verdict)


def _self(problem: Problem, model: Model, config: ModeConfig) -> Outcome:
    return _looped(problem, model, config, feedback_rounds=0)


def _oracle(problem: Problem, model: Model, config: ModeConfig) -> Outcome:
    return _looped(problem, model, config, feedback_rounds=1)


def _looped(problem: Problem, model: Model, config: ModeConfig, feedback_rounds: int) -> Outcome:
    """interp's loop on the task; after it, while rounds are left and the hidden tests fail,
    their first failure is the next task of the same session."""
    from interp.approval.decision import auto_approve
    from interp.core.session import Session, SessionConfig

    spend = Spend()
    with fixed_folder(f"eval-self-{problem.task_id}") as folder:
        work = str(folder)
        runner = RunnerConfig(cwd=work, sandbox=Sandbox("workspace" if config.sandbox else "off"),
                              limits=Limits(memory_mb=2048, processes=64),
                              env_remove=config.env_remove, output_dir=work)
        session = Session(model, auto_approve, config=SessionConfig(
            max_turns=config.turns, timeout=config.block_timeout, runner=runner,
            report_files=False, checks=config.checks))
        blocks, first = [], None
        try:
            error = _run_task(session, self_task(problem), blocks)
            code = final_code(problem, blocks, session.messages)
            verdict = check(problem, code, plus=config.plus) if code or not error else None
            for _ in range(feedback_rounds):
                if verdict is None or verdict.passed:
                    break
                first = first or verdict
                error = _run_task(session, oracle_feedback(problem, verdict), blocks)
                code = final_code(problem, blocks, session.messages)
                verdict = check(problem, code, plus=config.plus)
        finally:
            session.close()
    spend.add_totals(session.totals)
    turns = provider_messages(session.messages[1:])
    calls = sum(1 for m in session.messages if m.role == "assistant")
    if verdict is None:
        return Outcome.failed_call(turns, spend, error, calls=calls)
    return Outcome.scored(turns, spend, code, verdict, calls=calls, first=first)


def _run_task(session, task: str, blocks: list[str]) -> str | None:
    """Run one task of a session, adding its Python blocks to `blocks`; the last error notice."""
    error = None
    for event in session.run(task):
        if isinstance(event, ev.BlockApproved) and event.language == "python":
            blocks.append(event.code)
        elif isinstance(event, ev.Notice) and event.level == "error":
            error = event.text
    return error


def final_code(problem: Problem, blocks: list[str], messages: list[Entry]) -> str:
    """The solution a `self` run ends with: its Python blocks taken together (later definitions
    win, as in the runner), else the code in its last reply."""
    runnable = [block for block in blocks if parses(block)]
    code = solution_code("\n\n".join(runnable), problem.entry_point, problem.prompt)
    if defines(code, problem.entry_point):
        return code
    for message in reversed(messages):
        if message.role == "assistant" and message.content:
            found = solution_code(message.content, problem.entry_point, problem.prompt)
            if defines(found, problem.entry_point):
                return found
    return code

