"""Maps language names and aliases to runner classes, built-in and from entry points."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import entry_points

from .protocol import Runner, RunnerConfig

ENTRY_POINT_GROUP = "interp.languages"


class UnknownLanguage(LookupError):
    """No runner is registered under that name."""


def builtin_runners() -> list[type]:
    """The runners that ship with interp."""
    from .node import NodeRunner
    from .python import PythonRunner
    from .shell import ShellRunner
    from .zsh import ZshRunner

    return [PythonRunner, ShellRunner, NodeRunner, ZshRunner]


class Registry:
    """Resolves a language tag to a runner class."""

    def __init__(self, runners: Iterable[type] = ()) -> None:
        self._by_name: dict[str, type] = {}
        self._canonical: list[str] = []
        self.errors: list[str] = []
        for runner in runners:
            self.register(runner)

    def register(self, runner: type) -> None:
        """Add a runner under its name and aliases; later registrations win."""
        if runner.name not in self._canonical:
            self._canonical.append(runner.name)
        for key in (runner.name, *runner.aliases):
            self._by_name[key.lower()] = runner

    def load_entry_points(self) -> None:
        """Register third-party runners; a broken plugin is recorded in `errors`, not raised."""
        for point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                runner = point.load()
                if not isinstance(getattr(runner, "name", None), str):
                    raise TypeError("it has no `name`")
            except Exception as exc:  # a plugin can fail in any way; interp must go on
                self.errors.append(f"language plugin {point.name!r} could not be loaded: {exc}")
                continue
            self.register(runner)

    def resolve(self, tag: str) -> type:
        """The runner class for a name or alias (case-insensitive)."""
        runner = self._by_name.get(tag.strip().lower())
        if runner is None:
            raise UnknownLanguage(f"unknown language {tag!r}; available: {', '.join(self.names())}")
        return runner

    def canonical(self, tag: str) -> str:
        """The runner name a tag resolves to."""
        return self.resolve(tag).name

    def rules_language(self, tag: str) -> str:
        """The language whose approval rules judge a tag's blocks: the runner's `rules_as`
        (zsh blocks are judged by the shell's rules), else its canonical name."""
        runner = self.resolve(tag)
        rules_as = getattr(runner, "rules_as", None)
        return rules_as if isinstance(rules_as, str) and rules_as in self else runner.name

    def __contains__(self, tag: str) -> bool:
        return tag.strip().lower() in self._by_name

    def names(self) -> list[str]:
        """Canonical language names in registration order, less runners marked `listed = False`
        (the generic jupyter runner: it backs languages chosen with --runner LANG=jupyter)."""
        return [name for name in self._canonical
                if getattr(self._by_name[name.lower()], "listed", True)]

    def model_notes(self) -> str:
        """What runners tell the model about where their blocks run (`model_note`), one a line."""
        notes = (getattr(self._by_name[name.lower()], "model_note", "") for name in self.names())
        return "\n".join(note for note in notes if isinstance(note, str) and note)

    def create(self, tag: str, config: RunnerConfig | None = None) -> Runner:
        """A new, not yet started runner for the tag."""
        return self.resolve(tag)(config)


def default_registry(plugins: bool = True) -> Registry:
    """Built-in runners plus those installed under the `interp.languages` entry-point group."""
    registry = Registry(builtin_runners())
    if plugins:
        registry.load_entry_points()
    return registry
