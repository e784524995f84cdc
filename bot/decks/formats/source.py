"""Source files: read within a size limit, refused early and in one line when they are not text.

An import reads a file someone else wrote, maybe a huge or binary one. It is refused by its size
before anything is read, read at most once and never past the limit, and checked to be UTF-8
text before any parser sees it.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from bot.decks.formats.draft import FormatError

MAX_IMPORT_BYTES = 10 * 1024 * 1024

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (an .xlsx, .docx or .zip file)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file (.xls, .doc)"),
    (b"\x7fELF", "a program"),
    (b"MZ", "a Windows program"),
)


def read_bytes(path: Path, limit: int = MAX_IMPORT_BYTES) -> bytes:
    """The file's bytes, refusing it by its size first, and never reading more than `limit`."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise _too_big(size, limit)
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except FileNotFoundError:
        raise FormatError("no such file") from None
    except IsADirectoryError:
        raise FormatError("this is a folder, not a file") from None
    except OSError as error:
        raise FormatError(f"cannot read the file: {error.strerror or error}") from None
    if len(data) > limit:
        raise _too_big(len(data), limit)
    return data


def _too_big(size: int, limit: int) -> FormatError:
    return FormatError(
        f"the file is {size:,} bytes; an import may be at most {limit // 1048576} MiB"
    )


def kind_of_binary(data: bytes) -> str | None:
    """What a binary file is ("a PNG image"), or None if it may be text."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    head = data[:8192]
    if b"\x00" in head:
        return "binary data"
    return None


def decode_text(data: bytes, format_name: str) -> str:
    """UTF-8 text (a byte-order mark is allowed, as Excel writes one), or a refusal at its line."""
    binary = kind_of_binary(data)
    if binary is not None:
        raise FormatError(f"this is {binary}, not a {format_name} file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        line_start = data.rfind(b"\n", 0, error.start) + 1
        column = len(data[line_start : error.start].decode("utf-8", errors="replace")) + 1
        raise FormatError(
            f"not UTF-8 (byte 0x{data[error.start]:02x}, column {column}); save the file as UTF-8",
            line,
        ) from None
    if "\x00" in text:
        raise FormatError(f"this is binary data, not a {format_name} file")
    return text


_XML_DECLARATION = re.compile(
    rb"""^(\xef\xbb\xbf)?\s*<\?xml\s[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})["']"""
)


def decode_xml(data: bytes, format_name: str) -> bytes:
    """XML as UTF-8 bytes for the parser: a file that declares another encoding (Moodle
    reads `ISO-8859-1` and `windows-1252` banks) is decoded as it says and its declaration
    rewritten; anything else must be UTF-8, as `decode_text` checks."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            raise FormatError("not UTF-16 as its byte-order mark says; save it as UTF-8") from None
    declared = _XML_DECLARATION.match(data)
    encoding = declared.group(2).decode("ascii") if declared else "utf-8"
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise FormatError(
            f"the XML declares encoding '{encoding}', which Python does not know; save the "
            f"file as UTF-8",
            1,
        ) from None
    if codec in ("utf-8", "utf-8-sig") or declared is None:
        decode_text(data, format_name)  # refuses binary and non-UTF-8 files in one line
        return data
    binary = kind_of_binary(data)
    if binary is not None:
        raise FormatError(f"this is {binary}, not a {format_name} file")
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FormatError(
            f"not {encoding} as its declaration says (byte 0x{data[error.start]:02x}); save "
            f"the file as UTF-8",
            line,
        ) from None
    start, end = declared.span(2)
    head = data[:start].decode("ascii", errors="replace") + "UTF-8"
    return (head + text[len(data[:end].decode(codec)) :]).encode("utf-8")
