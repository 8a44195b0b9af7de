"""The Jupyter runner's parts that need no kernel: MIME bundles, HTML tables, runner choices."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from languages import default_registry
from languages.jupyter import JupyterRunner
from languages.jupyter.bundle import TABLE_MIME, BundleReader, html_display
from languages.jupyter.choice import ChoiceError, GatewaySettings, apply_choices, parse_choice
from languages.python import PythonRunner
from languages.shell import ShellRunner


def tiny_png(width: int = 3, height: int = 2) -> bytes:
    """A valid PNG of the given size."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + b"\x00\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


# -- bundles -----------------------------------------------------------------------------------
@pytest.mark.fast
def test_png_is_saved_as_the_next_figure_and_never_overwrites(tmp_path):
    (tmp_path / "figure-4-1.png").write_bytes(b"someone else's")
    reader = BundleReader(str(tmp_path), block=4)
    encoded = base64.b64encode(tiny_png()).decode()
    first = reader.read({"image/png": encoded, "text/plain": "<Figure size 640x480>"})
    second = reader.read({"image/png": encoded})
    assert first.text == "" and first.display.kind == "image"
    assert first.display.path == str(tmp_path / "figure-4-1-2.png")
    assert second.display.path == str(tmp_path / "figure-4-2.png")
    assert first.display.data == {"format": "png", "mime": "image/png", "width": 3, "height": 2,
                                  "figure": 1}
    assert (tmp_path / "figure-4-1.png").read_bytes() == b"someone else's"
    assert reader.displays == [first.display, second.display]


@pytest.mark.fast
def test_bad_png_and_plain_values(tmp_path):
    reader = BundleReader(str(tmp_path), block=1)
    assert reader.read({"image/png": "%%%"}).text == "[interp: a figure could not be decoded]\n"
    assert reader.read({"text/plain": "42"}).text == "42\n"
    assert reader.read({"text/plain": ["a", "b"]}).text == "ab\n"
    assert reader.read("junk").text == "" and reader.displays == []


@pytest.mark.fast
def test_interp_table_type_wins_over_html(tmp_path):
    reader = BundleReader(str(tmp_path), block=1)
    table = {"kind": "table", "text": "t", "path": None, "data": {"type": "DataFrame"}}
    shown = reader.read({TABLE_MIME: table, "text/html": "<table><tr><td>1</td></tr></table>",
                         "text/plain": "t"})
    assert shown.display.data == {"type": "DataFrame"} and shown.text == ""


@pytest.mark.fast
def test_too_many_displays_are_counted_not_listed(tmp_path):
    reader = BundleReader(str(tmp_path), block=1)
    for _ in range(103):
        reader.read({"text/html": "<table><tr><th>a</th></tr><tr><td>1</td></tr></table>"})
    assert len(reader.displays) == 100 and "3 more figures or values" in reader.finish_note()


@pytest.mark.fast
def test_html_table_without_index_or_header():
    display = html_display("<p>x</p><table><tr><td>1</td><td>2</td></tr>"
                           "<tr><td>3</td><td>4</td></tr></table>")
    assert display.data["columns"] == ["0", "1"] and display.data["index"] == ["0", "1"]
    assert display.data["rows"] == [["1", "2"], ["3", "4"]]
    assert display.text.endswith("[table: 2 rows x 2 columns]")


@pytest.mark.fast
def test_html_table_is_bounded_and_keeps_pandas_index_name():
    head = "<thead><tr><th></th>" + "".join(f"<th>c{i}</th>" for i in range(40)) + "</tr>"
    head += "<tr><th>key</th>" + "<th></th>" * 40 + "</tr></thead>"
    body = "".join(f"<tr><th>r{r}</th>" + "<td>v</td>" * 40 + "</tr>" for r in range(100))
    display = html_display(f"<table>{head}<tbody>{body}</tbody></table>", "plain text form")
    data = display.data
    assert data["shape"] == [100, 40] and len(data["rows"]) == 20 and len(data["columns"]) == 20
    assert data["row_gap"] == 10 and data["col_gap"] == 10 and data["index_names"] == ["key"]
    assert display.text.startswith("plain text form")


@pytest.mark.fast
def test_html_without_a_table_is_not_a_table():
    assert html_display("<b>bold</b>") is None
    assert html_display("<table></table>") is None


# -- runner choices ----------------------------------------------------------------------------
@pytest.mark.fast
@pytest.mark.parametrize("entry, expected", [
    ("python=jupyter", ("python", "jupyter", None)),
    ("Python = gateway:python_kubernetes", ("python", "gateway", "python_kubernetes")),
    ("shell=builtin", ("shell", "builtin", None)),
    ("r=jupyter:ir", ("r", "jupyter", "ir")),
])
def test_parse_choice(entry, expected):
    choice = parse_choice(entry)
    assert (choice.language, choice.backend, choice.kernel) == expected


@pytest.mark.fast
@pytest.mark.parametrize("entry", ["python", "python=", "=jupyter", "python=docker",
                                   "shell=builtin:bash", "1x=jupyter"])
def test_bad_choices_are_one_line_errors(entry):
    with pytest.raises(ChoiceError, match="expected LANGUAGE=RUNNER"):
        parse_choice(entry)


@pytest.mark.fast
def test_apply_choices_binds_languages_and_keeps_aliases():
    registry = default_registry()
    notices = apply_choices(registry, ["py=gateway", "shell=jupyter", "r=jupyter:ir",
                                       "shell=builtin"],
                            GatewaySettings("http://gpu:8888", "MY_TOKEN"))
    python = registry.resolve("python3")
    assert issubclass(python, JupyterRunner) and python.name == "python"
    assert python.choice.gateway_url == "http://gpu:8888" and python.choice.kernel == "python3"
    assert python.choice.token_env == "MY_TOKEN" and "http://gpu:8888" in python.model_note
    assert registry.resolve("bash") is ShellRunner  # the later entry for shell wins
    assert registry.resolve("r").choice.kernel == "ir"
    assert registry.names() == ["python", "shell", "javascript", "r"]
    assert "the sandbox, resource limits and environment scrubbing do not apply" in notices[0]
    assert "http://gpu:8888" in registry.model_notes()
    assert notices[1] == "r blocks run in the local kernel ir."


@pytest.mark.fast
def test_generic_runner_is_registered_but_not_offered_to_the_model():
    registry = default_registry()
    assert registry.resolve("jupyter") is JupyterRunner
    assert "jupyter" not in registry.names() and registry.model_notes() == ""
    assert registry.resolve("python") is PythonRunner


@pytest.mark.parametrize("entries, gateway, message", [
    (["python=gateway"], GatewaySettings(None), "needs the gateway's URL"),
    (["python=gateway"], GatewaySettings("gpu:8888"), "expected http://HOST:PORT"),
    (["r=builtin"], GatewaySettings(None), "no built-in r runner"),
])
def test_choices_that_cannot_work_are_refused(entries, gateway, message):
    with pytest.raises(ChoiceError, match=message):
        apply_choices(default_registry(), entries, gateway)
