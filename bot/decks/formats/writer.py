"""Deck files out of imports: YAML an author can edit, checked by the deck loader, written whole.

The text is validated by the same loader `quizbot validate` uses, from a temporary file beside
the target, and only then linked into place, so an import leaves a valid deck or nothing, never
half a file, and never replaces a file that is already there.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from bot.decks.format import MAX_FILE_BYTES
from bot.decks.loading import load_decks


class WriteError(Exception):
    """The deck could not be written; the message says why, for one line of output."""


class _DeckDumper(yaml.SafeDumper):
    """Block style as in the shipped decks: lists indented under their key, long lines kept."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_DeckDumper.add_representer(str, _represent_text)


def render_deck(mapping: dict[str, Any], comments: list[str]) -> str:
    """The YAML text of a deck mapping, after `comments` as # lines, a blank line per question."""
    body = yaml.dump(
        mapping, Dumper=_DeckDumper, allow_unicode=True, sort_keys=False, width=1_000_000
    )
    lines: list[str] = []
    for line in body.splitlines():
        if line == "questions:" or (line.startswith("  - id: ") and lines[-1] != "questions:"):
            lines.append("")
        lines.append(line)
    header = [f"# {comment}" if comment else "#" for comment in comments]
    return "\n".join([*header, *lines]) + "\n"


def write_deck(text: str, out: Path) -> None:
    """Validates `text` as a deck file and writes it to `out`, which must not exist yet."""
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise WriteError(
            f"the deck would be {size:,} bytes, over the {MAX_FILE_BYTES // 1048576} MiB a deck "
            f"file may have; split the source file and import the parts"
        )
    folder = out.parent
    if not folder.is_dir():
        raise WriteError(f"no folder {folder}; create it or choose another --out")
    if out.exists():
        raise WriteError(f"{out} already exists; choose another --out or remove it first")
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{out.stem}.", suffix=".importing.yaml", dir=folder
        )
    except OSError as error:
        raise WriteError(f"cannot write in {folder}: {error.strerror or error}") from None
    temp = Path(temporary)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)
        problems = load_decks([temp]).problems
        if problems:
            first = str(problems[0]).replace(str(temp), str(out))
            raise WriteError(
                f"the converted deck does not validate ({len(problems)} problems), first: {first}"
            )
        _link(temp, out)
    finally:
        temp.unlink(missing_ok=True)


def _link(temp: Path, out: Path) -> None:
    """Puts the file in place without ever replacing one that appeared meanwhile."""
    try:
        os.link(temp, out)
    except FileExistsError:
        raise WriteError(f"{out} already exists; choose another --out or remove it first") from None
    except OSError:  # no hard links here (some network and FAT file systems)
        if out.exists():
            raise WriteError(
                f"{out} already exists; choose another --out or remove it first"
            ) from None
        os.replace(temp, out)
