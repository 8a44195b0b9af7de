"""The user docs hold together: every relative link and anchor in the README, docs/, bench/ and
the other top-level Markdown files resolves, the README links every page of docs/, and the
README stays a five-minute read."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest

from docs_kit import DOCS, ROOT, anchors, headings, links, section, slug

pytestmark = pytest.mark.fast  # reads Markdown files only

README = ROOT / "README.md"
PAGES = sorted({*ROOT.glob("*.md"), *DOCS.glob("*.md"), *(ROOT / "bench").glob("*.md")})
README_LINES = 300


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Each relative link of `page` whose file, or whose anchor in a Markdown file, is missing."""
    text = page.read_text(encoding="utf-8")
    broken = []
    for line, target in links(text):
        if "://" in target or target.startswith("mailto:"):
            continue
        path, _, anchor = unquote(target).partition("#")
        linked = (page.parent / path).resolve() if path else page
        where = f"{page.relative_to(root)}:{line}: {target}"
        if not linked.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(
                linked.read_text(encoding="utf-8")):
            broken.append(f"{where} (no heading gives #{anchor})")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(page):
    assert broken_links(page) == []


def test_the_readme_links_every_guide():
    linked = {(README.parent / path.partition("#")[0]).resolve()
              for _, path in links(README.read_text(encoding="utf-8")) if "://" not in path}
    assert {page.resolve() for page in DOCS.glob("*.md")} - linked == set()


def test_the_readme_stays_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_LINES


def test_every_guide_starts_with_its_title_and_the_task_it_serves():
    for page in DOCS.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert headings(text)[0][0] == 1, page.name
        first = text.split("\n\n", 2)[1]
        assert first.startswith("You want"), (page.name, first[:60])


def test_a_broken_link_and_a_missing_anchor_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## A `code` heading: yes\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#a-code-heading-yes) [file](gone.md) [anchor](other.md#nope)\n"
                    "`[in code](gone.md)`\n\n```\n[in a fence](gone.md)\n```\n"
                    "[web](https://example.com/x) [self](#title)\n\n# Title\n")
    assert [item.split(": ", 1)[1] for item in broken_links(page, tmp_path)] == [
        "gone.md (no such file)", "other.md#nope (no heading gives #nope)"]


def test_sections_end_at_the_next_heading_of_their_level(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# T\n\n## A\n\ntext\n\n```\n## not a heading\n```\n\n### A.1\n\nmore\n\n"
                    "## B\n\nother\n")
    assert section(page, "A").split() == ["text", "```", "##", "not", "a", "heading", "```",
                                          "###", "A.1", "more"]
    assert slug("`interp mcp`: interp's runners") == "interp-mcp-interps-runners"
