"""`--local`: a llama.cpp server interp starts itself, its model files and their download."""
