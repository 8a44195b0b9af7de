"""Every task of the benchmark, in the order they run."""

from __future__ import annotations

from interp.eval.tasks import (chart_tasks, cleaning_tasks, convert_tasks, math_tasks, script_tasks,
                               shell_tasks, stats_tasks)
from interp.eval.tasks.spec import Task

TASKS: tuple[Task, ...] = (*stats_tasks.STATS, *cleaning_tasks.TASKS, *stats_tasks.PIVOTS,
                           *chart_tasks.TASKS, *math_tasks.TASKS, *convert_tasks.TASKS,
                           *shell_tasks.TASKS, *script_tasks.TASKS)
