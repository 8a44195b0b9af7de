"""Skills: folders with a SKILL.md (a name and a description in its front matter, instructions
and scripts below) that the model reads when a task matches (catalog.py finds them,
prompt.py tells the model and the person)."""

from interp.skills.catalog import Found, Skill, find_skills
from interp.skills.prompt import Skills, load_skills, with_skills

__all__ = ["Found", "Skill", "Skills", "find_skills", "load_skills", "with_skills"]
