"""The reply checks: everything that looks at a reply, or at a reply's blocks once they ran,
and decides it is not the answer yet or asks the model for something. One protocol
(`base.Check`: a check sees the task, the reply and this task's block records, and returns a
`Request` or None), one list (`catalog.CHECKS`, in the order they run, each with its reason
and the models `checks = auto` turns it on for), one runner per task (`catalog.TaskChecks`).
The loop runs the list and names no check; docs/checks.md has what each was measured to do."""
