"""`interp eval dabench`: InfiAgent-DABench's closed-form data-analysis questions, each run
through interp's own loop on its table and scored the benchmark's way (`@name[value]`)."""
