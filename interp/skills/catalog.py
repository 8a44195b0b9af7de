"""Finding skills: folders with a SKILL.md under the user's `skills/` folder (in interp's config
folder) and under `.agents/skills/` in every folder from the project root (the nearest folder
above with `.git`, else the working folder alone) down to the working folder.

Only the start of each SKILL.md is read (its front matter: name and description), at most
HEAD_BYTES, from a regular file opened without waiting (a FIFO or a device is refused), and at
most MAX_FOLDERS folders of each skills folder are looked at, so a huge file or folder costs no
more than a small one. A skill whose front matter is malformed is skipped with one warning.
Two skills of the same name: the one closer to the working folder is used (the project's over
the user's, a subfolder's over the root's), as with AGENTS.md files."""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path

from interp.bounded import read_head
from interp.project import project_folders
from interp.skills.frontmatter import FrontMatterError, front_matter

SKILL_FILE = "SKILL.md"
PROJECT_FOLDER = (".agents", "skills")
USER_FOLDER = "skills"  # in interp's config folder
HEAD_BYTES = 16 * 1024  # of a SKILL.md read to find its front matter
MAX_FOLDERS = 200  # looked at in one skills folder
NAME_CHARS = 64  # as the Agent Skills standard allows
DESCRIPTION_CHARS = 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class Skill:
    """One skill: its name and description (from the front matter), its SKILL.md and where
    it was found ("project" or "user")."""

    name: str
    description: str
    path: str  # the SKILL.md
    scope: str

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)


@dataclass(frozen=True)
class Found:
    """What a search found: the skills in use (closest first), those another of the same name
    hides, the folders or files skipped, each as "PATH: why", and the folders looked in."""

    skills: tuple[Skill, ...] = ()
    shadowed: tuple[Skill, ...] = ()
    skipped: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()


def skill_folders(cwd: str | os.PathLike, user_dir: str | os.PathLike | None
                  ) -> list[tuple[Path, str]]:
    """The folders skills are looked for in, each with its scope, closest to the work first:
    `.agents/skills` from the working folder up to the project root, then the user's."""
    found = [(folder.joinpath(*PROJECT_FOLDER), "project")
             for folder in reversed(project_folders(cwd))]
    if user_dir is not None:
        found.append((Path(user_dir) / USER_FOLDER, "user"))
    return found


def find_skills(cwd: str | os.PathLike, user_dir: str | os.PathLike | None) -> Found:
    """Every skill for a session in `cwd` (`user_dir`: interp's config folder)."""
    skills: dict[str, Skill] = {}
    shadowed: list[Skill] = []
    skipped: list[str] = []
    folders = skill_folders(cwd, user_dir)
    for folder, scope in folders:
        for path in _skill_files(folder, skipped):
            try:
                skill = read_skill(path, scope)
            except (OSError, FrontMatterError, ValueError) as exc:
                skipped.append(f"{path}: {_why(exc)}")
                continue
            if skill.name in skills:
                shadowed.append(skill)
            else:
                skills[skill.name] = skill
    return Found(tuple(skills.values()), tuple(shadowed), tuple(skipped),
                 tuple(str(folder) for folder, _ in folders))


def read_skill(path: str | os.PathLike, scope: str) -> Skill:
    """The skill a SKILL.md describes; FrontMatterError or ValueError when its front matter
    is malformed or lacks a name or a description, OSError when it cannot be read."""
    values = front_matter(read_head(path, HEAD_BYTES).data.decode("utf-8", "replace"))
    name = (values.get("name") or "").strip()
    description = " ".join((values.get("description") or "").split())
    if not name:
        raise ValueError("its front matter has no name")
    if len(name) > NAME_CHARS or not _NAME.match(name):
        raise ValueError(f"its name {name[:80]!r} is not 1 to {NAME_CHARS} letters, digits, "
                         f"dots, dashes or underscores")
    if not description:
        raise ValueError("its front matter has no description")
    if len(description) > DESCRIPTION_CHARS:
        description = description[:DESCRIPTION_CHARS - 1].rstrip() + "…"
    return Skill(name, description, os.path.abspath(path), scope)


def _skill_files(folder: Path, skipped: list[str]) -> list[Path]:
    """The SKILL.md of each skill folder in `folder`, in name order (at most MAX_FOLDERS
    entries are looked at; hidden ones are not); a folder that cannot be listed is said."""
    try:
        with os.scandir(folder) as entries:
            names = []
            for entry in entries:
                if len(names) == MAX_FOLDERS:
                    skipped.append(f"{folder}: only its first {MAX_FOLDERS} entries were "
                                   f"looked at")
                    break
                if not entry.name.startswith("."):
                    names.append(entry.name)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            skipped.append(f"{folder}: {_why(exc)}")
        return []
    files = (folder / name / SKILL_FILE for name in sorted(names))
    return [path for path in files if path.exists()]  # a folder without one is not a skill


def _why(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)
