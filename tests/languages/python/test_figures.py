"""Matplotlib figures made by Python blocks are saved as PNG files and reported as Display events."""

from __future__ import annotations
from png_kit import file_png_size

import os
import re
import sys
import textwrap
from pathlib import Path

import pytest

from languages.protocol import RunnerConfig
from languages.records import Display
from languages.python import PythonRunner

pytest.importorskip("matplotlib")  # the runner uses this interpreter's packages

pytestmark = pytest.mark.usefixtures("no_leaked_processes")

NAME = re.compile(r"figure-(\d+)-(\d+)(-\d+)?\.png")


def block(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")




@pytest.fixture(scope="module")
def plotting(tmp_path_factory):
    """A shared runner on this interpreter (which has matplotlib), with pyplot imported."""
    cwd = tmp_path_factory.mktemp("plotcwd")
    runner = PythonRunner(RunnerConfig(python=sys.executable, cwd=str(cwd), grace=5.0))
    runner.start()
    for _ in runner.run("import matplotlib.pyplot as plt"):
        pass
    yield runner
    runner.stop()


@pytest.fixture
def fresh(make_runner, tmp_path):
    return make_runner(PythonRunner, python=sys.executable, cwd=str(tmp_path))


def test_figure_left_open_is_saved_as_png_and_closed(plotting, run):
    out, displays, res = run(plotting, "plt.bar(['a', 'b', 'c'], [3, 1, 2])\nprint('done')")
    assert res.ok and out == "done\n"
    assert len(displays) == 1
    image = displays[0]
    assert image.kind == "image" and image.data["mime"] == "image/png"
    folder = Path(plotting.output_dir())
    assert folder == Path(plotting.config.cwd) / "interp-output"
    assert os.path.isabs(image.path) and Path(image.path).parent == folder
    assert NAME.fullmatch(Path(image.path).name)
    assert image.text == f"[figure saved: {image.path}]"
    assert file_png_size(image.path) == (640, 480)  # default figsize 6.4x4.8 in at 100 dpi
    assert (image.data["width"], image.data["height"]) == (640, 480)
    # closed after saving: the next block neither re-saves nor still has it open
    out, displays, res = run(plotting, "plt.get_fignums()")
    assert (out, displays) == ("[]\n", [])


def test_show_saves_each_time_and_never_blocks(plotting, run):
    code = block("""
        fig = plt.figure(figsize=(4, 3), dpi=50)
        plt.plot([1, 2, 3])
        plt.show()
        print('between')
        plt.figure(figsize=(2, 2), dpi=100)
        plt.scatter([1], [2])
        plt.show()
        print('after', plt.get_fignums())
    """)
    out, displays, res = run(plotting, code)
    assert res.ok and out == "between\nafter []\n"
    assert [d.kind for d in displays] == ["image", "image"]
    assert file_png_size(displays[0].path) == (200, 150)
    assert file_png_size(displays[1].path) == (200, 200)
    blocks, numbers = zip(*(NAME.fullmatch(Path(d.path).name).group(1, 2) for d in displays))
    assert blocks[0] == blocks[1] and numbers == ("1", "2")
    assert "non-interactive" not in out
    # nothing left open, so the end of the block added nothing and the next block has nothing
    assert run(plotting, "pass")[1] == []


def test_figure_show_method_does_not_warn_and_figure_is_saved(plotting, run):
    out, displays, res = run(plotting, "f = plt.figure()\nf.add_subplot().plot([1])\nf.show()")
    assert res.ok and "non-interactive" not in out and "Warning" not in out
    assert len(displays) == 1 and file_png_size(displays[0].path) == (640, 480)


def test_pyplot_imported_in_the_same_block_is_patched(fresh, run):
    out, displays, res = run(fresh, "import matplotlib.pyplot as plt\nplt.plot([1])\nplt.show()\n"
                                    "plt.plot([2])\nplt.show()")
    assert res.ok and out == ""
    assert len(displays) == 2 and len({d.path for d in displays}) == 2
    for d in displays:
        assert file_png_size(d.path) == (640, 480)
    out, _, _ = run(fresh, "from matplotlib.pyplot import show\nshow is plt.show, hasattr(show, '__wrapped__')")
    assert out == "(True, True)\n"


def test_block_without_matplotlib_imports_nothing_and_shows_nothing(fresh, run):
    out, displays, res = run(fresh, "x = [i * i for i in range(5)]\nprint(sum(x))\nx")
    assert res.ok and out == "30\n[0, 1, 4, 9, 16]\n" and displays == []
    out, displays, res = run(fresh, "import sys\n[m in sys.modules for m in ('matplotlib', 'pandas', 'numpy')]")
    assert out == "[False, False, False]\n" and displays == []
    assert not Path(fresh.output_dir()).exists()  # the folder is made only for a figure


def test_files_are_numbered_per_block_and_never_overwritten(fresh, run):
    folder = Path(fresh.output_dir())
    folder.mkdir()
    taken = folder / "figure-2-1.png"
    taken.write_bytes(b"not mine")
    run(fresh, "import matplotlib.pyplot as plt")  # block 1
    _, displays, _ = run(fresh, "plt.plot([1]); plt.show(); plt.plot([2])")  # block 2
    assert [Path(d.path).name for d in displays] == ["figure-2-1-2.png", "figure-2-2.png"]
    assert taken.read_bytes() == b"not mine"
    _, displays, _ = run(fresh, "plt.plot([3])")  # block 3
    assert [Path(d.path).name for d in displays] == ["figure-3-1.png"]


def test_output_dir_is_configurable_and_relative_to_cwd(make_runner, run, tmp_path):
    runner = make_runner(PythonRunner, python=sys.executable, cwd=str(tmp_path), output_dir="charts/out")
    assert runner.output_dir() == str(tmp_path / "charts" / "out")
    out, displays, res = run(runner, "import os, matplotlib.pyplot as plt\nos.chdir('/')\nplt.plot([1])\n"
                                     "print(os.environ['INTERP_OUTPUT_DIR'])")
    assert res.ok and out == f"{tmp_path / 'charts' / 'out'}\n"
    assert len(displays) == 1 and Path(displays[0].path).parent == tmp_path / "charts" / "out"
    absolute = make_runner(PythonRunner, python=sys.executable, cwd=str(tmp_path),
                           output_dir=str(tmp_path / "abs"))
    assert absolute.output_dir() == str(tmp_path / "abs")


def test_figures_of_a_failing_block_are_saved(plotting, run):
    out, displays, res = run(plotting, "plt.plot([1, 2])\n1 / 0")
    assert res.status == "error" and "ZeroDivisionError" in out
    assert len(displays) == 1 and file_png_size(displays[0].path) == (640, 480)
    assert run(plotting, "plt.get_fignums()")[0] == "[]\n"


def test_interrupted_block_closes_its_figures_without_saving(plotting, run):
    code = "plt.plot([1])\nplt.show()\nplt.plot([2])\nimport time\ntime.sleep(60)"
    out, displays, res = run(plotting, code, timeout=2)
    assert res.timed_out and res.status == "timeout"
    assert len(displays) == 1  # the shown one; the open one was closed unsaved
    assert run(plotting, "plt.get_fignums()")[0] == "[]\n"


def test_a_figure_that_cannot_be_saved_is_reported_and_closed(fresh, run):
    folder = Path(fresh.output_dir())
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("a file where the folder should be")
    out, displays, res = run(fresh, "import matplotlib.pyplot as plt\nplt.plot([1])\nprint('ok')")
    assert res.ok and displays == []
    assert out.startswith("ok\n") and "[interp: figure 1 could not be saved:" in out
    assert run(fresh, "plt.get_fignums()")[0] == "[]\n"


def test_model_text_lists_saved_figures(plotting, run):
    out, displays, res = run(plotting, "print('plotted')\n_ = plt.plot([1])")
    text = res.model_text()
    assert text == f"plotted\n[figure saved: {displays[0].path}]\n"
    assert res.output.for_model() == "plotted\n"  # the plain output is unchanged


def test_a_figure_the_code_saved_itself_is_not_saved_again(tmp_path):
    """`plt.savefig("x.png")` with the figure left open gives one file, not two."""
    runner = PythonRunner(RunnerConfig(python=sys.executable, cwd=str(tmp_path)))
    try:
        events = list(runner.run("import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
                                 "plt.savefig('mine.png')"))
        assert events[-1].status == "ok", events[-1]
        displays = [e for e in events if isinstance(e, Display)]
        assert [(d.kind, d.text, d.path) for d in displays] == [
            ("plot", "", str(tmp_path / "mine.png"))]  # what it plots; no figure saved again
        assert events[-1].model_text() == ""
        assert (tmp_path / "mine.png").exists()
        assert not (tmp_path / "interp-output").exists()
        later = list(runner.run("plt.plot([3, 4])"))
        assert [e.kind for e in later if isinstance(e, Display)] == ["image"]
    finally:
        runner.stop()
