"""Files a task names: `sales.csv` in "sum the units in sales.csv" is a file of the working
folder, so the model is given its description (columns, first lines) as `/file` would, rather
than guessing what it holds."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

MAX_MENTIONS = 3  # files described per task
LISTED = 1000  # entries of a folder read to tell a file name with spaces
_WORD = re.compile(r"(?<![\w/.-])([\w][\w-]*)/?(?![\w/.-])")  # a folder as people name one
# A file name as people write one: word characters, dots, dashes and slashes, then an extension.
_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,6})(?![\w/-])")
# Extensions of the files a task asks to write (a dotted name with another one is code).
FILE_TYPES = frozenset(
    "csv tsv json jsonl ndjson xlsx xls ods xml html htm txt md rst log yaml yml toml ini cfg "
    "conf png jpg jpeg gif svg webp bmp tif tiff pdf docx pptx odt zip gz tgz tar bz2 xz db "
    "sqlite sqlite3 sql parquet feather pkl pickle npy npz h5 hdf5 ipynb py js mjs cjs ts sh "
    "bash r rb go rs c cc cpp h hpp java kt swift php pl lua mp3 wav mp4 mov avi ics vcf "
    "bib tex epub".split())
# Names of tools and libraries that look like files ("Use Node.js to ...").
NOT_FILES = frozenset({"node.js", "vue.js", "next.js", "nuxt.js", "react.js", "d3.js",
                       "three.js", "chart.js", "express.js", "angular.js", "p5.js", "deno.js"})
# Never sent unasked: what usually holds secrets.
_SECRET = re.compile(r"(^|[._-])(env|secrets?|credentials?|passwords?|tokens?|keys?|id_rsa|"
                     r"id_ed25519|netrc|npmrc|pypirc|pgpass)([._-]|$)|\.(pem|key|p12|pfx|kdbx)$",
                     re.IGNORECASE)


def mentioned_files(task: str, root: str | os.PathLike) -> list[Path]:
    """The regular files inside `root` that `task` names, in order, each once (at most
    MAX_MENTIONS); hidden files, files outside `root` and secret-looking names are left out."""
    base = Path(root).resolve()
    found: list[Path] = []
    for name, end in _file_names(task):
        path = (base / name).resolve()
        if not path.is_file():  # "city temps.csv": the last word reads as a name of its own
            spaced = max((n for n in _names_ending(path.parent, path.name)
                          if task[:end].endswith(n)), key=len, default=None)
            path = (path.parent / spaced).resolve() if spaced else path
        if _SECRET.search(path.name):
            continue
        if path in found or base not in path.parents or not path.is_file():
            continue
        found.append(path)
        if len(found) == MAX_MENTIONS:
            break
    return found


def mentioned_names(task: str, root: str | os.PathLike) -> list[str]:
    """The files of mentioned_files as paths relative to `root`."""
    base = os.path.realpath(root)
    return [os.path.relpath(path, base) for path in mentioned_files(task, root)]


def mentioned_folders(task: str, root: str | os.PathLike) -> list[str]:
    """The folders directly inside `root` that `task` names ("the photos folder", "logs/"),
    in order, each once (at most MAX_MENTIONS); hidden ones are left out."""
    found: list[str] = []
    for word in _WORD.findall(task):
        if word not in found and (Path(root) / word).is_dir():
            found.append(word)
            if len(found) == MAX_MENTIONS:
                break
    return found


def unwritten_files(task: str, root: str | os.PathLike) -> list[str]:
    """The files `task` names that do not exist in `root` yet ("save it as pivot.csv"), as
    written in the task, each once (at most MAX_MENTIONS); hidden ones, and names whose
    extension is not a common file type (`math.floor`, `df.head`), are left out."""
    base = Path(root).resolve()
    found: list[str] = []
    for name, _ in _file_names(task):
        if (name in found or Path(name).suffix[1:].lower() not in FILE_TYPES
                or name.lower() in NOT_FILES):
            continue
        path = (base / name).resolve()
        if (base in path.parents and not os.path.lexists(path)
                and not _ends_a_name_here(name, path.parent)):
            found.append(name)
            if len(found) == MAX_MENTIONS:
                break
    return found


def _ends_a_name_here(name: str, folder: Path) -> bool:
    """Whether a file of `folder` is named `... NAME` (the task named "city temps.csv", whose
    last word reads as a file name of its own)."""
    return bool(_names_ending(folder, Path(name).name))


def _names_ending(folder: Path, name: str) -> list[str]:
    """The names of `folder`'s entries that are words and a space before `name` ("city
    temps.csv" for `temps.csv`); the first LISTED entries are looked at."""
    tail, names = " " + name, []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= LISTED:
                    break
                if entry.name.endswith(tail):
                    names.append(entry.name)
    except OSError:
        return []
    return names


def _file_names(task: str) -> Iterator[tuple[str, int]]:
    """The file names written in `task`, in order, each with where it ends, leaving out
    hidden ones."""
    for match in _NAME.finditer(task):
        name = match.group(1).rstrip(".")
        if not any(part.startswith(".") for part in Path(name).parts):
            yield name, match.start(1) + len(name)
