"""Shell file automation: renaming, counting, finding and moving files."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from random import Random

from interp.eval.tasks.spec import Attempt, Number, Reference, Task, Words

# -- shell: renaming, counting, finding, moving -------------------------------------------------
_PHOTOS = ("beach.jpeg", "city night.jpeg", "dog.jpeg", "family 2023.jpeg", "garden.jpeg",
           "mountains.jpeg", "sunset.jpeg", "logo.png", "map.png", "scan.pdf")


def _make_photos(folder: Path) -> None:
    (folder / "photos").mkdir()
    for i, name in enumerate(_PHOTOS):
        (folder / "photos" / name).write_bytes(f"image {i}\n".encode())


def _check_photos(attempt: Attempt):
    want = {name.removesuffix(".jpeg") + ".jpg" if name.endswith(".jpeg") else name: i
            for i, name in enumerate(_PHOTOS)}
    found = {p.name: p for p in (attempt.folder / "photos").iterdir() if p.is_file()}
    if set(found) != set(want):
        yield f"photos/ holds {sorted(found)}, not {sorted(want)}"
        return
    if any(found[name].read_bytes() != f"image {i}\n".encode() for name, i in want.items()):
        yield "a renamed photo's content changed"


RENAME = Task(
    id="shell-rename-extension", category="shell",
    sentence="Rename every .jpeg file in the photos folder to .jpg, keeping the rest of the name. "
             "How many files did you rename?",
    make=_make_photos, files=_check_photos,
    answer=(Number(sum(n.endswith(".jpeg") for n in _PHOTOS), tol=0, rel=0, name="the count"),),
    right=Reference("shell", 'cd photos && n=0\nfor f in *.jpeg; do mv -- "$f" "${f%.jpeg}.jpg"; n=$((n+1)); done\n'
                             'echo "renamed $n files"; cd ..'),
    wrong=Reference("shell", 'cd photos && n=0\nfor f in $(ls *.jpeg); do mv "$f" "${f%.jpeg}.jpg" 2>/dev/null && n=$((n+1)); done\n'
                             'echo "renamed $n files"; cd ..'),
)


@cache
def _logs() -> dict[str, int]:
    rng = Random(2214)
    return {f"{name}.log": rng.randint(40, 400) for name in ("app", "db", "worker", "cron", "auth")}


def _make_logs(folder: Path) -> None:
    (folder / "logs").mkdir()
    for name, lines in _logs().items():
        (folder / "logs" / name).write_text(
            "".join(f"2024-06-01 12:{i // 60 % 60:02d}:{i % 60:02d} INFO {name} event {i}\n"
                    for i in range(lines)), encoding="utf-8")
    (folder / "logs" / "README.txt").write_text("Rotated weekly.\n" * 25, encoding="utf-8")


COUNT_LINES = Task(
    id="shell-count-log-lines", category="shell",
    sentence="How many lines are there in all the .log files in the logs folder together?",
    make=_make_logs,
    answer=(Number(sum(_logs().values()), tol=0, rel=0, name="the line count"),),
    right=Reference("shell", "cat logs/*.log | wc -l"),
    wrong=Reference("shell", "cat logs/* | wc -l"),
)

_PROJECT = {"src/app.py": "def main():\n    # TODO: read the config\n    pass\n# TODO: logging\n",
            "src/util.py": "def add(a, b):\n    return a + b\n",
            "src/web/main.js": "// TODO: debounce the handler\nexport const x = 1;\n",
            "tests/test_app.py": "def test_main():\n    pass  # TODO: a real test\n",
            "docs/guide.md": "# Guide\n\nNothing to do here.\n",
            "setup.cfg": "[metadata]\nname = demo\n"}


def _make_project(folder: Path) -> None:
    for name, text in _PROJECT.items():
        path = folder / "project" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


_TODO_FILES = tuple(Path(n).name for n, text in _PROJECT.items() if "TODO" in text)

FIND_TODO = Task(
    id="shell-find-todo", category="shell",
    sentence="Which files under the project folder contain the word TODO? Tell me how many there "
             "are.",
    make=_make_project,
    answer=(Words(_TODO_FILES), Number(len(_TODO_FILES), tol=0, rel=0, name="the count")),
    right=Reference("shell", "grep -rl TODO project; echo \"$(grep -rl TODO project | wc -l) files\""),
    wrong=Reference("shell", "grep -r TODO project | wc -l"),
)

_DOWNLOADS = ("report.pdf", "notes.txt", "data.csv", "photo.jpg", "slides.pdf", "todo.txt",
              "archive.zip", "table.csv")


def _make_downloads(folder: Path) -> None:
    (folder / "downloads").mkdir()
    for name in _DOWNLOADS:
        (folder / "downloads" / name).write_text(f"contents of {name}\n", encoding="utf-8")


def _check_downloads(attempt: Attempt):
    top = attempt.folder / "downloads"
    left = sorted(p.name for p in top.iterdir() if p.is_file())
    if left:
        yield f"downloads/ still holds {left}"
    for name in _DOWNLOADS:
        moved = top / name.rsplit(".", 1)[1] / name
        if not moved.is_file() or moved.read_text(encoding="utf-8") != f"contents of {name}\n":
            yield f"downloads/{name} is not in downloads/{name.rsplit('.', 1)[1]}/"
            return


ORGANIZE = Task(
    id="shell-organize-by-extension", category="shell",
    sentence="Move the files in the downloads folder into subfolders named after their extension "
             "(pdf, txt, csv and so on).",
    make=_make_downloads, files=_check_downloads,
    right=Reference("shell", 'cd downloads && for f in *.*; do mkdir -p "${f##*.}" && mv -- "$f" "${f##*.}/"; done; '
                             'ls -R; cd ..'),
    wrong=Reference("shell", 'cd downloads && for f in *.*; do mkdir -p "${f##*.}" && cp -- "$f" "${f##*.}/"; done; '
                             'ls -R; cd ..'),
)


TASKS = (RENAME, COUNT_LINES, FIND_TODO, ORGANIZE)
