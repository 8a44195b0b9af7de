"""`interp eval tasks`: the work interp is for (data, charts, maths, files, Node, fixes), each
task with generated inputs and a programmatic check of its files and its answer."""
