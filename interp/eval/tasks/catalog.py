"""Every task of the benchmark, in the order they run."""

from __future__ import annotations

from interp.eval.tasks import chart_tasks, convert_tasks, math_tasks, system_tasks, table_tasks
from interp.eval.tasks.spec import Task

TASKS: tuple[Task, ...] = (*table_tasks.TASKS, *chart_tasks.TASKS, *math_tasks.TASKS,
                           *convert_tasks.TASKS, *system_tasks.TASKS)
