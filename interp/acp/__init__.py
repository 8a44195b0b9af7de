"""`interp acp`: interp as the agent of an editor that speaks the Agent Client Protocol (Zed,
JetBrains IDEs, Neovim): serve.py serves it over stdio, agent.py answers the protocol, turn.py
runs a prompt's task, updates.py tells the editor what happened, permission.py asks it."""
