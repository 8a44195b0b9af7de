"""describe_file / check_attachable on real files written to tmp_path."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from interp.bounded import CHUNK
from interp.core.files.attachments import (HEAD_BYTES, AttachmentError, check_attachable, describe_file,
                                describe_files, sniff)

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
BOUND = 2000 + 1024  # max_preview_chars + the header lines


def pdf_bytes(pages: int, padding: int = 0, page_tree: bool = True) -> bytes:
    """A small valid PDF with `pages` empty pages; `padding` bytes of stream before the tree."""
    kids = " ".join(f"{n} 0 R" for n in range(4, 4 + pages))
    objects = [b"<< /Type /Catalog /Pages 3 0 R >>",
               b"<< /Length %d >>\nstream\n" % padding + b"%" * padding + b"\nendstream",
               (f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>" if page_tree
                else "<< /Kids [] >>").encode()]
    objects += [b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 200 200] >>"] * pages
    out, offsets = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def write_xlsx(path: Path, sheets: list[str]) -> None:
    """A minimal but well-formed xlsx workbook written with zipfile."""
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    entries = "".join(f'<sheet name="{name}" sheetId="{i}" r:id="rId{i}"/>'
                      for i, name in enumerate(sheets, 1))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Override PartName="/xl/workbook.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>'))
        archive.writestr("xl/workbook.xml", (
            f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{main}" xmlns:r="{rel}">'
            f"<sheets>{entries}</sheets></workbook>"))
        for i, _ in enumerate(sheets, 1):
            archive.writestr(f"xl/worksheets/sheet{i}.xml",
                             f'<worksheet xmlns="{main}"><sheetData/></worksheet>')


def bytes_read() -> int | None:
    """Bytes this process has read through read() so far (Linux /proc), else None."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return None
    return int(next(line.split()[1] for line in text.splitlines() if line.startswith("rchar")))


# -- CSV / TSV --------------------------------------------------------------------------------
def test_csv_shows_path_size_columns_rows_and_first_rows(tmp_path):
    path = tmp_path / "sales.csv"
    rows = ["region,month,amount"] + [f"north,{m},{m * 10}" for m in range(1, 101)]
    path.write_text("\n".join(rows) + "\n")
    text = describe_file(path)
    assert f"File: {path}" in text
    assert f"({path.stat().st_size:,} bytes)" in text or f"{path.stat().st_size} bytes" in text
    assert "Type: CSV (text)" in text
    assert "Columns: 3 (comma-delimited)" in text
    assert "Rows: 101 (line count, including any header)" in text
    assert "region,month,amount" in text and "north,9,90" in text
    assert "north,10,100" not in text  # header + 9 rows = 10 preview lines


def test_tsv_with_long_lines_is_cut_and_tab_detected(tmp_path):
    path = tmp_path / "wide.tsv"
    path.write_text("\t".join(f"col{i}" for i in range(80)) + "\n" + "\t".join("x" * 80) + "\n")
    text = describe_file(path)
    assert "Type: TSV (text)" in text and "Columns: 80 (tab-delimited)" in text
    assert all(len(line) <= 200 for line in text.splitlines())


def test_semicolon_csv_and_quoted_fields(tmp_path):
    path = tmp_path / "eu.csv"
    path.write_text('name;note;price\n"Smith; J.";"a, b";3,50\nDoe;x;1,00\n')
    assert "Columns: 3 (semicolon-delimited)" in describe_file(path)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_rows_are_counted_whatever_the_line_ends(tmp_path, end):
    path = tmp_path / "ends.csv"
    path.write_bytes(end.join(["a,b"] + [f"{i},{i}" for i in range(30)]).encode() + end.encode())
    text = describe_file(path)
    assert "Rows: 31 (line count" in text and "Columns: 2" in text and "\n0,0\n1,1\n" in text


def test_a_crlf_split_between_two_reads_ends_one_line(tmp_path):
    path = tmp_path / "split.txt"
    body = b"x" * (CHUNK - 1) + b"\r\n" + b"tail\rlast"  # the CR ends the first read
    path.write_bytes(body)
    assert "Lines: 3" in describe_file(path)


def test_csv_with_one_line_falls_back_without_raising(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("justonevalue")
    text = describe_file(path)
    assert "Columns: 1" in text and "Rows: 1 " in text


# -- JSON -------------------------------------------------------------------------------------
def test_json_object_lists_top_level_keys(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"name": "x", "items": [1, 2], "nested": {"a": 1}}))
    assert 'object with 3 keys: "name", "items", "nested"' in describe_file(path)


def test_json_array_gives_length_and_first_element_type(tmp_path):
    path = tmp_path / "records.json"
    path.write_text(json.dumps([{"id": i, "v": i * 2} for i in range(1234)]))
    assert "array of 1,234 items; first item: object (keys: id, v)" in describe_file(path)


def test_invalid_json_is_reported_not_raised(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"a": 1,')
    assert "Structure: not valid JSON" in describe_file(path)


def test_large_json_is_not_parsed(tmp_path):
    path = tmp_path / "big.json"
    with path.open("w") as handle:
        handle.write("[")
        handle.write(",".join(['{"key": "%s"}' % ("v" * 100)] * 60_000))
        handle.write("]")
    assert path.stat().st_size > 5 * 1024 * 1024
    text = describe_file(path)
    assert "top-level array; large file, not parsed" in text and len(text) <= BOUND


# -- xlsx / PDF / binary ----------------------------------------------------------------------
def test_xlsx_sheet_names_from_the_zip(tmp_path):
    path = tmp_path / "book.xlsx"
    write_xlsx(path, ["Data", "Summary 2024", "Notes"])
    text = describe_file(path)
    assert "Type: Excel workbook (xlsx)" in text
    assert "Sheets (3): Data, Summary 2024, Notes" in text


def test_xlsx_without_workbook_or_not_a_zip(tmp_path):
    empty = tmp_path / "empty.xlsx"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("hello.txt", "hi")
    assert "Sheets: unknown (no xl/workbook.xml)" in describe_file(empty)
    fake = tmp_path / "fake.xlsx"
    fake.write_bytes(b"PK\x03\x04 this is not really a zip" + b"\x00" * 50)
    assert "damaged" in describe_file(fake)


def test_pdf_page_count(tmp_path):
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf_bytes(2))
    text = describe_file(path)
    assert "Type: PDF document (version 1.4)" in text and "Pages: 2" in text
    assert "Preview" not in text


def test_pdf_page_tree_past_the_first_megabyte_is_found_in_the_tail(tmp_path):
    path = tmp_path / "big.pdf"
    path.write_bytes(pdf_bytes(3, padding=3 * 1024 * 1024))
    assert "Pages: 3" in describe_file(path)


def test_pdf_pages_counted_without_tree_or_unknown(tmp_path):
    small = tmp_path / "notree.pdf"
    small.write_bytes(pdf_bytes(2, page_tree=False))
    assert "Pages: 2" in describe_file(small)
    nothing = tmp_path / "nothing.pdf"
    nothing.write_bytes(b"%PDF-1.7\n" + b"x" * 100 + b"\n%%EOF\n")
    assert "Pages: unknown" in describe_file(nothing)


def test_png_is_binary_with_magic_and_dimensions(tmp_path):
    path = tmp_path / "pixel.png"
    path.write_bytes(PNG_1X1)
    text = describe_file(path)
    assert "binary file (PNG image); content not shown" in text
    assert "Dimensions: 1x1 pixels" in text and "Preview" not in text


@pytest.mark.parametrize("head, magic", [(b"\x7fELF\x02\x01\x01", "ELF executable"),
                                         (b"\x1f\x8b\x08\x00", "gzip data"),
                                         (b"\xff\xd8\xff\xe0", "JPEG image"),
                                         (b"GIF89a\x01\x00\x01\x00", "GIF image")])
def test_binary_magic_types(tmp_path, head, magic):
    path = tmp_path / "blob.bin"
    path.write_bytes(head + bytes(range(256)) * 4)
    assert f"binary file ({magic})" in describe_file(path)


def test_unknown_binary(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)) * 10)
    assert "binary file (unrecognised format); content not shown" in describe_file(path)


# -- text, encodings, bounds ------------------------------------------------------------------
def test_invalid_utf8_text_is_shown_with_replacement_characters(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café au lait\nnaïve\n".encode("latin-1"))
    text = describe_file(path)
    assert "not valid UTF-8" in text and "caf\ufffd au lait" in text


def test_multibyte_character_cut_at_the_head_boundary_is_still_valid_utf8(tmp_path):
    path = tmp_path / "utf8.txt"
    path.write_bytes(b"a" * (HEAD_BYTES - 1) + "é and more\n".encode())
    assert sniff(path.read_bytes()[:HEAD_BYTES]).valid_utf8
    assert "not valid UTF-8" not in describe_file(path)


def test_empty_file_and_plain_text(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert describe_file(empty).endswith("Size: 0 B\nType: text\nLines: 0")
    notes = tmp_path / "notes.txt"
    notes.write_text("first\r\nsecond\r\n")
    text = describe_file(notes)
    assert "Type: text\nLines: 2\nPreview (first 2 lines):\n```\nfirst\nsecond\n```" in text


def test_control_characters_and_backticks_cannot_escape_the_preview(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("\x1b[31mred\x1b[0m\n```python\nprint(1)\n```\nend\n")
    text = describe_file(path)
    assert "\x1b" not in text
    assert "\n````\n" in text  # a fence longer than any backtick run inside


def test_preview_respects_max_preview_chars(tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("".join(f"line {i} " + "y" * 60 + "\n" for i in range(1000)))
    text = describe_file(path, max_preview_chars=300)
    preview = text.split("```\n")[1]
    assert len(preview) <= 300 + 4 and "Lines: 1,000" in text
    assert "Preview (first 4 lines)" in text


def test_fifty_megabyte_files_stay_bounded(tmp_path):
    path = tmp_path / "huge.txt"
    line = b"2024-01-01,sensor-7,12.5,ok," + b"z" * 70 + b"\n"
    with path.open("wb") as handle:
        handle.write(line * (50 * 1024 * 1024 // len(line) + 1))
    assert path.stat().st_size >= 50 * 1024 * 1024
    for suffix in (".txt", ".csv", ".json", ".pdf", ".xlsx", ".bin"):
        target = path.with_suffix(suffix)
        path.rename(target)
        path = target
        before = bytes_read()
        text = describe_file(path)
        after = bytes_read()
        assert len(text) <= BOUND, suffix
        assert "File: " in text and "Size: 50 MiB (52,428," in text
        if before is not None:
            assert after - before < 3 * 1024 * 1024, suffix  # never the whole file
    assert "not counted (large file)" in describe_file(path.with_suffix(".bin").rename(
        path.with_suffix(".csv")))


# -- problems ---------------------------------------------------------------------------------
def test_missing_file_is_one_clear_line(tmp_path):
    text = describe_file(tmp_path / "nope.csv")
    assert text == f"File {tmp_path / 'nope.csv'}: cannot attach: no such file."
    with pytest.raises(AttachmentError, match="nope.csv: no such file"):
        check_attachable(tmp_path / "nope.csv")


def test_directory_and_fifo_are_not_attachable(tmp_path):
    assert "is a directory" in describe_file(tmp_path)
    with pytest.raises(AttachmentError, match="is a directory"):
        check_attachable(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "not a regular file" in describe_file(fifo)  # and it did not block on open
    with pytest.raises(AttachmentError, match="not a regular file"):
        check_attachable(fifo)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read anything")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.csv"
    path.write_text("a,b\n")
    path.chmod(0)
    try:
        assert describe_file(path) == f"File {path}: cannot attach: permission denied."
        with pytest.raises(AttachmentError, match="permission denied"):
            check_attachable(path)
    finally:
        path.chmod(0o600)


def test_check_attachable_returns_an_absolute_path(tmp_path, monkeypatch):
    (tmp_path / "rel.txt").write_text("hello\n")
    monkeypatch.chdir(tmp_path)
    assert check_attachable("rel.txt") == tmp_path / "rel.txt"
    assert f"File: {tmp_path / 'rel.txt'}" in describe_file(Path("rel.txt"))


def test_describe_files_and_sizes(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    text = describe_files([tmp_path / "a.txt", tmp_path / "missing.txt"])
    assert text.startswith("Attached files:\n\nFile: ") and "alpha" in text
    assert "missing.txt: cannot attach: no such file." in text
    assert "Size: 1.5 KiB (1,536 bytes)" in describe_file(_file(tmp_path / "k.txt", 1536))


def _file(path: Path, size: int) -> Path:
    path.write_bytes(b"x" * size)
    return path
