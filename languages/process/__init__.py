"""The process machinery under the runners: a long-lived interpreter on a pty (spawn, reader,
end-of-block markers, captured output, the run's outcome), its limits and sandbox, the
processes a block leaves behind, and the environment that keeps programs from asking."""
