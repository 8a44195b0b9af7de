"""Approval: proposals and decisions, the rules in config.toml, and shell command splitting."""
