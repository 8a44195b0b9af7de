"""Exit statuses of interp, one place (README: "exit status"), and how a task ends early."""

from dataclasses import dataclass

OK = 0
MODEL_ERROR = 1  # model or API error; also an unexpected error
USAGE = 2  # bad flag or setting, no model configured, no terminal to ask on
MAX_TURNS = 3
POLICY = 4  # blocks were denied by policy and nothing ran after the last denial
NO_ANSWER = 5  # the reply was refused or blocked (content filter), or the model sent only empty replies
LOOP = 6  # the model repeated the same block with the same result, or code kept failing: stopped
SCHEMA = 7  # --output-schema: the final answer was not valid JSON against the schema
INTERRUPTED = 130  # 128 + SIGINT
PIPE_CLOSED = 141  # stdout or stderr was closed by its reader (128 + SIGPIPE, as a shell shows)


def killed_by(signum: int) -> int:
    """The status a shell shows for a process that died of signal `signum`."""
    return 128 + signum


@dataclass(frozen=True)
class Ending:
    """How a task ends when a reply is not an answer."""

    code: int
    reason: str
    notice: str
    level: str = "error"
