"""AGENTS.md discovery: the user's file, then the project's from its root down; CLAUDE.md only
where a folder has no AGENTS.md; bounded in size, and the cut said."""

from __future__ import annotations

import pytest

from interp.core.prompt.instructions import (MAX_BYTES, Instructions, candidate_files,
                                      load_instructions, with_instructions)

pytestmark = pytest.mark.fast


@pytest.fixture
def project(tmp_path):
    """tmp/repo (a git root) / app / src, and a user config folder."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    src = root / "app" / "src"
    src.mkdir(parents=True)
    user = tmp_path / "config" / "interp"
    user.mkdir(parents=True)
    return root, src, user


def test_files_are_read_from_the_user_then_the_root_down_to_the_working_folder(project):
    root, src, user = project
    (user / "AGENTS.md").write_text("Answer in French.\n")
    (root / "AGENTS.md").write_text("Use uv, not pip.\n")
    (root / "app" / "CLAUDE.md").write_text("Tests live in tests/.\n")
    (src / "AGENTS.md").write_text("This folder is generated; do not edit it.\n")
    (root.parent / "AGENTS.md").write_text("Above the project: never read.\n")
    found = load_instructions(src, user)
    assert found.paths == [str(user / "AGENTS.md"), str(root / "AGENTS.md"),
                           str(root / "app" / "CLAUDE.md"), str(src / "AGENTS.md")]
    part = found.prompt_part()
    assert part.index("French") < part.index("uv") < part.index("tests/") < part.index("generated")
    assert "Above the project" not in part


def test_claude_md_only_where_there_is_no_agents_md(project):
    root, src, user = project
    (root / "AGENTS.md").write_text("agents\n")
    (root / "CLAUDE.md").write_text("claude\n")
    assert [p.name for p in candidate_files(root, None)] == ["AGENTS.md"]
    (root / "AGENTS.override.md").write_text("override\n")
    assert [p.name for p in candidate_files(root, None)] == ["AGENTS.override.md"]


def test_without_a_project_root_only_the_working_folder(tmp_path):
    (tmp_path / "AGENTS.md").write_text("parent\n")
    here = tmp_path / "here"
    here.mkdir()
    (here / "AGENTS.md").write_text("here\n")
    assert load_instructions(here, None).paths == [str(here / "AGENTS.md")]


def test_empty_files_are_skipped_and_nothing_found_changes_nothing(project):
    root, src, user = project
    (root / "AGENTS.md").write_text("  \n\n")
    found = load_instructions(src, user)
    assert found.files == () and found.notice() is None
    assert with_instructions("PROMPT", found) == "PROMPT"
    assert with_instructions("PROMPT", None) == "PROMPT"


def test_the_size_is_bounded_and_the_notice_says_what_was_cut(project):
    root, src, user = project
    (user / "AGENTS.md").write_text("keep this\n" * 100)
    (root / "AGENTS.md").write_text("line of the project file\n" * 2000)  # about 50 KB
    (src / "AGENTS.md").write_text("closest line of the instructions\n" * 2)
    found = load_instructions(src, user)
    assert sum(f.used for f in found.files) <= MAX_BYTES
    big = found.files[1]
    assert big.cut and big.used < big.size and big.text.endswith("\n")  # cut at a line
    assert found.left_out == (str(src / "AGENTS.md"),)
    notice = found.notice(home=str(root.parent))
    assert notice.startswith("Instructions read from ~/config/interp/AGENTS.md, ~/repo/AGENTS.md "
                             "(cut to ")
    assert "Left out past the 32.0 KB limit: ~/repo/app/src/AGENTS.md." in notice
    assert "only its first" in found.prompt_part()


def test_an_unreadable_file_is_named_not_fatal(project):
    root, src, user = project
    (root / "AGENTS.md").mkdir()  # a folder where a file should be: not a file, not read
    (src / "AGENTS.md").write_text("ok\n")
    assert load_instructions(src, user).paths == [str(src / "AGENTS.md")]


def test_the_part_is_appended_to_the_prompt_as_it_is(project):
    root, src, user = project
    (root / "AGENTS.md").write_text("# Rules\nRun `make test` after changes.\n")
    found = load_instructions(src, user)
    prompt = with_instructions("You are interp.\n", found)
    assert prompt.startswith("You are interp.\n\nInstructions from AGENTS.md files")
    assert f"--- {root / 'AGENTS.md'}\n# Rules\nRun `make test` after changes." in prompt
    assert Instructions().prompt_part() == ""
