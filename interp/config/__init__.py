"""Settings (CLI > environment > config.toml > defaults) and the models they make; below the cli and eval."""
