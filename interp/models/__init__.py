"""Model access: the Model protocol, the litellm adapter (its errors, lazy loading) and the
local llama.cpp model (`--local`)."""
