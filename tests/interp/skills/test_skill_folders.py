"""Finding skills in real folders: the project's `.agents/skills` from its root down, the
user's; the closest of two of a name wins; malformed ones skipped with one line each; reads
bounded (a huge SKILL.md, a FIFO, a folder of thousands); the prompt within its budget."""

from __future__ import annotations

import os

import pytest

from interp.skills import catalog, load_skills
from interp.skills.prompt import PROMPT_CHARS

pytestmark = pytest.mark.fast


def skill(folder, name, description="Does a thing.", body="Steps.\n", front=None):
    """A skill folder `folder/name` with its SKILL.md (and a script); returns the folder."""
    path = folder / name
    (path / "scripts").mkdir(parents=True)
    (path / "scripts" / "run.py").write_text("print('ran')\n")
    text = front if front is not None else f"---\nname: {name}\ndescription: {description}\n---\n"
    (path / "SKILL.md").write_text(text + body)
    return path


@pytest.fixture
def project(tmp_path):
    """repo (a git root) / app, with `.agents/skills` at both, and a user config folder."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    app = root / "app"
    app.mkdir()
    user = tmp_path / "config" / "interp"
    (user / "skills").mkdir(parents=True)
    return root, app, user


def test_skills_from_the_working_folder_up_to_the_root_then_the_user(project):
    root, app, user = project
    skill(app / ".agents" / "skills", "csv-report", "Summarise a CSV into a report.")
    skill(root / ".agents" / "skills", "release", "Cut a release.")
    skill(user / "skills", "pdf-forms", "Fill in PDF forms.")
    skill(root.parent / ".agents" / "skills", "outside", "Above the project: never read.")
    found = load_skills(app, user)
    assert [(s.name, s.scope) for s in found.listed] == [
        ("csv-report", "project"), ("release", "project"), ("pdf-forms", "user")]
    part = found.prompt_part()
    assert "read its SKILL.md in full with a code block" in part
    assert (f"- csv-report: Summarise a CSV into a report. "
            f"({app / '.agents/skills/csv-report/SKILL.md'})") in part
    assert "outside" not in part
    assert found.notice() == "Skills: csv-report, release, pdf-forms (/skills lists them)."
    assert found.warnings() == []


def test_the_closest_skill_of_a_name_wins_and_the_other_is_listed_as_hidden(project):
    root, app, user = project
    skill(user / "skills", "lint", "The user's way.")
    skill(root / ".agents" / "skills", "lint", "The project's way.")
    found = load_skills(app, user)
    assert [(s.description, s.scope) for s in found.listed] == [("The project's way.", "project")]
    assert "Hidden by the skill of the same name closer to the working folder: lint" in \
        found.listing()


def test_a_malformed_skill_is_skipped_with_one_line_and_the_others_stay(project):
    root, app, user = project
    folder = root / ".agents" / "skills"
    skill(folder, "good")
    skill(folder, "no-front", front="# Just instructions\n")
    skill(folder, "no-description", front="---\nname: no-description\n---\n")
    skill(folder, "bad-name", front="---\nname: two words\ndescription: x\n---\n")
    skill(folder, "unclosed", front="---\nname: unclosed\ndescription: x\n")
    (folder / "notes").mkdir()  # no SKILL.md: not a skill, not a problem
    found = load_skills(app, user)
    assert [s.name for s in found.listed] == ["good"]
    warnings = found.warnings()
    assert len(warnings) == 4
    assert all(w.startswith("skill skipped: ") and "\n" not in w for w in warnings)
    said = "\n".join(warnings)
    for name, why in (("no-front", "does not start with a front matter block"),
                      ("no-description", "has no description"),
                      ("bad-name", "is not 1 to 64 letters"),
                      ("unclosed", "front matter is not closed")):
        assert f"{folder / name / 'SKILL.md'}: " in said and why in said


def test_only_the_start_of_a_huge_skill_md_is_read(project, monkeypatch):
    root, app, user = project
    path = skill(root / ".agents" / "skills", "big", body="x" * (10 * 1024 * 1024)) / "SKILL.md"
    read = []
    real = os.read
    monkeypatch.setattr(catalog.os, "read", lambda fd, n: read.append(n) or real(fd, n))
    found = load_skills(app, user)
    assert [s.name for s in found.listed] == ["big"]
    assert sum(read) <= catalog.HEAD_BYTES < path.stat().st_size


def test_a_fifo_or_a_dangling_link_is_refused_without_a_wait(project):
    root, app, user = project
    folder = root / ".agents" / "skills"
    (folder / "pipe").mkdir(parents=True)
    os.mkfifo(folder / "pipe" / "SKILL.md")  # nobody writes to it: a blocking open would hang
    (folder / "gone").mkdir()
    (folder / "gone" / "SKILL.md").symlink_to(folder / "missing.md")
    found = load_skills(app, user)
    assert found.listed == ()
    assert found.warnings() == [f"skill skipped: {folder / 'pipe' / 'SKILL.md'}: "
                                f"not a regular file"]


def test_a_linked_skill_folder_is_followed(project, tmp_path):
    root, app, user = project
    shared = skill(tmp_path / "shared", "shared-skill", "Shared between agents.")
    (root / ".agents" / "skills").mkdir(parents=True)
    (root / ".agents" / "skills" / "shared-skill").symlink_to(shared)
    assert [s.name for s in load_skills(app, user).listed] == ["shared-skill"]


def test_a_folder_of_thousands_is_looked_at_only_so_far(project, monkeypatch):
    root, app, user = project
    folder = root / ".agents" / "skills"
    for n in range(5):
        skill(folder, f"s{n}")
    monkeypatch.setattr(catalog, "MAX_FOLDERS", 3)
    found = load_skills(app, user)
    assert len(found.listed) <= 3
    assert found.warnings() == [f"skill skipped: {folder}: only its first 3 entries were "
                                f"looked at"]


def test_the_prompt_list_keeps_to_its_budget_shortening_then_leaving_out(project):
    root, app, user = project
    folder = root / ".agents" / "skills"
    for n in range(30):
        skill(folder, f"skill-{n:02}", f"Skill number {n}. " + "Long words here. " * 40)
    found = load_skills(app, user)
    part = found.prompt_part()
    assert len(part) <= PROMPT_CHARS and found.short
    assert 0 < len(found.listed) < 30 and len(found.listed) + len(found.left_out) == 30
    assert "Left out past the prompt's 8,000-character limit for skills: skill-" in \
        found.notice()
    few = load_skills(app, user, budget=10 ** 6)
    assert len(few.listed) == 30 and not few.short and few.left_out == ()


def test_no_skills_adds_nothing_and_the_listing_says_where_to_put_them(project):
    root, app, user = project
    found = load_skills(app, user)
    assert found.prompt_part() == "" and found.notice() is None and found.warnings() == []
    listing = found.listing(home=str(root.parent))
    assert listing.startswith("No skills.")
    assert "~/repo/app/.agents/skills" in listing and "~/config/interp/skills" in listing
