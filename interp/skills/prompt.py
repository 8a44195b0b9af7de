"""The skills of a session: what the model is told of them (each skill's name, description
and SKILL.md path in the system prompt, within PROMPT_CHARS, as Codex bounds its list), the
start-up line and warnings, and what `/skills` lists. The model reads a skill's SKILL.md itself,
with a code block the person approves like any other, when a task matches its description."""

from __future__ import annotations

import os
from dataclasses import dataclass

from interp.project import home_shown
from interp.skills.catalog import Found, Skill, find_skills

PROMPT_CHARS = 8000  # of the skills' list in the system prompt
SHORT_DESCRIPTION = 200  # characters a description is cut to when the list is over budget
LISTED_NAMES = 8  # names in the start-up line

_INTRO = ("Skills: each is a folder with a SKILL.md holding instructions (and often scripts or "
          "other files) for one kind of task. Before working on a task that matches a skill's "
          "description, read its SKILL.md in full with a code block (for example `cat PATH` "
          "in shell) and follow it; paths in it are relative to the skill's folder. Read only "
          "the skills the task needs.")


@dataclass(frozen=True)
class Skills:
    """The skills found for a session and those of them the system prompt lists."""

    found: Found = Found()
    listed: tuple[Skill, ...] = ()  # in the prompt
    short: bool = False  # their descriptions were cut to fit PROMPT_CHARS
    left_out: tuple[Skill, ...] = ()  # past PROMPT_CHARS

    def prompt_part(self) -> str:
        """The text appended to the system prompt ("" without skills)."""
        if not self.listed:
            return ""
        return "\n".join([_INTRO, *(_line(skill, self.short) for skill in self.listed)])

    def notice(self, home: str | None = None) -> str | None:
        """The start-up line naming the skills (and those left out), or None without any."""
        if not self.found.skills:
            return None
        names = [skill.name for skill in self.listed]
        more = (f" and {len(names) - LISTED_NAMES} more" if len(names) > LISTED_NAMES else "")
        text = f"Skills: {', '.join(names[:LISTED_NAMES])}{more} (/skills lists them)."
        if self.left_out:
            text += (f" Left out past the prompt's {PROMPT_CHARS:,}-character limit for "
                     f"skills: {', '.join(skill.name for skill in self.left_out)}.")
        return text

    def warnings(self) -> list[str]:
        """One line per skill skipped (a malformed front matter, an unreadable file)."""
        return [f"skill skipped: {why}" for why in self.found.skipped]

    def listing(self, home: str | None = None) -> str:
        """What `/skills` shows."""
        def show(path: str) -> str:
            return home_shown(path, home)

        if not self.found.skills and not self.found.skipped:
            return ("No skills. A skill is a folder with a SKILL.md whose front matter gives "
                    "its name and description, in one of: "
                    f"{', '.join(map(show, self.found.folders))}. Skills are read when a "
                    "conversation starts.")
        lines = [f"Skills ({len(self.listed)}), read when this conversation started; the model "
                 f"reads a skill's SKILL.md when a task matches its description:"]
        for skill in self.listed:
            lines += [f"  {skill.name} ({skill.scope}): {_cut(skill.description, 160)}",
                      f"      {show(skill.path)}"]
        if self.left_out:
            lines.append(f"Left out of the prompt (over its {PROMPT_CHARS:,}-character limit "
                         f"for skills): {', '.join(s.name for s in self.left_out)}.")
        for skill in self.found.shadowed:
            lines.append(f"Hidden by the skill of the same name closer to the working folder: "
                         f"{skill.name} ({show(skill.path)}).")
        lines += [f"Skipped: {show(why)}" for why in self.found.skipped]
        return "\n".join(lines)


def load_skills(cwd: str | os.PathLike, user_dir: str | os.PathLike | None,
                budget: int = PROMPT_CHARS) -> Skills:
    """The skills of a session started in `cwd` (`user_dir`: interp's config folder), with
    as many in the prompt as fit `budget` characters: descriptions are shortened first,
    then the last skills are left out."""
    found = find_skills(cwd, user_dir)
    skills = found.skills
    for short in (False, True):
        if _size(skills, short) <= budget:
            return Skills(found, skills, short)
    listed: list[Skill] = []
    for skill in skills:
        if _size((*listed, skill), True) > budget:
            break
        listed.append(skill)
    return Skills(found, tuple(listed), True, skills[len(listed):])


def with_skills(prompt: str, skills: Skills | None) -> str:
    """The system prompt with the skills' part appended."""
    part = skills.prompt_part() if skills is not None else ""
    return f"{prompt.rstrip()}\n\n{part}\n" if part else prompt


def _line(skill: Skill, short: bool) -> str:
    description = _cut(skill.description, SHORT_DESCRIPTION) if short else skill.description
    return f"- {skill.name}: {description} ({skill.path})"


def _size(skills: tuple[Skill, ...], short: bool) -> int:
    return len(_INTRO) + sum(len(_line(skill, short)) + 1 for skill in skills)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"
