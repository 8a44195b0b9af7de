"""`interp eval`: code benchmarks (HumanEval, MBPP and their EvalPlus versions) with and without
execution feedback, scored in isolated, sandboxed processes."""
