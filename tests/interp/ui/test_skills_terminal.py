"""Skills in the real `interp` in a pty, with a real skill folder: said at the start, listed by
/skills, named in the system prompt; the model reads the SKILL.md and runs the skill's script
with blocks the person approves. A malformed one is one warning line, the others stay. The fake
OpenAI server scripts the model; the runners are real."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import model_args, run_interp
from pty_terminal import fenced, last_user

SKILL = """---
name: csv-report
description: >
  Summarise a CSV file into a report.
  Use when asked for a report on a CSV.
---
# CSV report
Run `python3 scripts/summarise.py FILE` from this folder and quote its last line.
"""
SCRIPT = "import sys\nrows = open(sys.argv[1]).read().splitlines()[1:]\nprint(f'REPORT: {len(rows)} rows')\n"


def make_skill(work: Path) -> Path:
    folder = work / ".agents" / "skills" / "csv-report"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    (folder / "scripts" / "summarise.py").write_text(SCRIPT)
    return folder


def test_a_skill_is_said_listed_read_and_used(spawn, fake_server, interp_env):
    work = interp_env["cwd"]
    folder = make_skill(work)
    (work / "sales.csv").write_text("region,total\nnorth,3\nsouth,4\n")
    fake_server.script([
        fenced("shell", f"cat {folder / 'SKILL.md'}", "The csv-report skill fits; reading it."),
        fenced("shell", f"cd {folder} && python3 scripts/summarise.py {work / 'sales.csv'}"),
        "The report says: 2 rows."])
    term = spawn()
    term.expect(r"Skills: csv-report \(/skills lists them\)\.")
    term.task("/skills")
    term.expect(r"csv-report \(project\): Summarise a CSV file into a report\.")
    term.prompt()
    listed = re.sub(r"\s", "", term.text)  # a long path may wrap anywhere
    assert str(folder / "SKILL.md") in listed
    term.line("make a report on sales.csv")
    assert term.question() == "shell"
    term.send("y")
    assert term.question() == "shell"
    term.send("y")
    term.expect("The report says: 2 rows.")
    system = fake_server.requests[0]["messages"][0]["content"]
    assert f"- csv-report: Summarise a CSV file into a report. Use when asked for a report on " \
           f"a CSV. ({folder / 'SKILL.md'})" in system
    assert "Run `python3 scripts/summarise.py FILE`" in last_user(fake_server.requests[1])
    assert "REPORT: 2 rows" in last_user(fake_server.requests[2])
    assert term.exit_status() == 0


def test_a_malformed_skill_is_one_warning_and_no_skills_reads_none(fake_server, interp_env):
    work = interp_env["cwd"]
    make_skill(work)
    broken = work / ".agents" / "skills" / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: broken\n---\nNo description.\n")
    fake_server.script(["Done.", "Done again."])
    done = run_interp(["-y", "-e", "hello", *model_args(fake_server)], interp_env)
    assert done.returncode == 0
    warnings = [line for line in done.stderr.splitlines() if "skill skipped" in line]
    assert warnings == [f"interp: warning: skill skipped: {broken / 'SKILL.md'}: its front "
                        f"matter has no description"]
    assert "csv-report" in fake_server.requests[0]["messages"][0]["content"]
    done = run_interp(["-y", "--no-skills", "-e", "hello", *model_args(fake_server)], interp_env)
    assert done.returncode == 0 and "skill" not in done.stderr
    assert "csv-report" not in fake_server.requests[1]["messages"][0]["content"]
