"""The `interp` command: flags, settings, and wiring the parts together."""
