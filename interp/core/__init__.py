"""The conversation core: the session loop, its events, steps from replies, reports to the model."""
