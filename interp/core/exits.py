"""Exit statuses of interp, one place (README: "exit status")."""

OK = 0
MODEL_ERROR = 1  # model or API error; also an unexpected error
USAGE = 2  # bad flag or setting, no model configured, no terminal to ask on
MAX_TURNS = 3
POLICY = 4  # blocks were denied by policy and nothing ran after the last denial
INTERRUPTED = 130
PIPE_CLOSED = 141  # stdout or stderr was closed by its reader (128 + SIGPIPE, as a shell shows)
