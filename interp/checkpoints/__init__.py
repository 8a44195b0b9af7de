"""Checkpoints of the working folder before each block, and putting the folder back (rewind).

`shadow` drives the shadow git repository kept for each folder in interp's data dir;
`capture` records a folder's state in it; `recorder` takes the checkpoints around each block
of a session; `history` reads them back from a saved conversation; `restore` plans and
applies a rewind; `prune` drops the checkpoints of conversations that are gone.
"""
