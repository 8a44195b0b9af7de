"""The parts of the conversation loop that `Session` (core/session.py) holds and calls: asking
the model (`asking.ModelAsker`), running a reply's blocks (`execution.BlockExecutor`), what a
reply means and the reply checks it runs (`turns.TurnChecks`), code run again and again
(`repeats.LoopGuard`), and the processes blocks left running (`processes`)."""
