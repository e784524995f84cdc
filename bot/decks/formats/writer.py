"""Deck files out of imports: YAML an author can edit, checked by the deck loader, written whole.

The text is validated by the same loader `quizbot validate` uses, from a temporary file beside
the target, and only then linked into place, so an import leaves a valid deck or nothing, never
half a file, and never replaces a file that is already there. A missing folder is created (and
removed again when nothing could be written).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from bot.decks.format import MAX_FILE_BYTES
from bot.decks.formats import block_yaml
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


def dump_with_pyyaml(mapping: dict[str, Any]) -> str:
    """The deck's YAML by PyYAML itself: what `block_yaml` must equal, and where it cannot."""
    return yaml.dump(
        mapping, Dumper=_DeckDumper, allow_unicode=True, sort_keys=False, width=1_000_000
    )


def render_deck(mapping: dict[str, Any], comments: list[str]) -> str:
    """The YAML text of a deck mapping, after `comments` as # lines, a blank line per question."""
    try:
        body = block_yaml.dump(mapping)
    except block_yaml.Unsupported:
        body = dump_with_pyyaml(mapping)
    lines: list[str] = []
    for line in body.splitlines():
        if line == "questions:" or (line.startswith("  - id: ") and lines[-1] != "questions:"):
            lines.append("")
        lines.append(line)
    header = [f"# {comment}" if comment else "#" for comment in comments]
    return "\n".join([*header, *lines]) + "\n"


def write_deck(text: str, out: Path) -> None:
    """Validates `text` as a deck file and writes it to `out`, which must not exist yet."""
    write_decks([(text, out)])


def write_decks(files: list[tuple[str, Path]]) -> None:
    """Validates each text as a deck and writes them all, or none: no target may exist yet.

    The parts of a split import are checked together (their deck ids must differ), then linked
    into place one by one; if one cannot be, the ones already linked are removed again.
    """
    for text, out in files:
        size = len(text.encode("utf-8"))
        if size > MAX_FILE_BYTES:
            raise WriteError(
                f"the deck would be {size:,} bytes, over the {MAX_FILE_BYTES // 1048576} MiB a "
                f"deck file may have; import it with --split N (questions per deck)"
            )
        if out.parent.exists() and not out.parent.is_dir():
            raise WriteError(f"{out.parent} is a file, not a folder; choose another --out")
        if out.exists():
            raise WriteError(f"{out} already exists; choose another --out or remove it first")
    temps: list[Path] = []
    created: list[Path] = []
    try:
        for _, out in files:
            created.extend(_make_folder(out.parent))
        for text, out in files:
            temps.append(_temporary(text, out))
        problems = load_decks(temps).problems
        if problems:
            first = str(problems[0])
            for temp, (_, out) in zip(temps, files, strict=False):
                first = first.replace(str(temp), str(out))
            raise WriteError(
                f"the converted deck does not validate ({len(problems)} problems), first: {first}"
            )
        linked: list[Path] = []
        try:
            for temp, (_, out) in zip(temps, files, strict=True):
                _link(temp, out)
                linked.append(out)
        except WriteError:
            for out in linked:
                out.unlink(missing_ok=True)
            raise
        created = []  # written: the folders stay
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)
        for folder in reversed(created):  # nothing written: neither are the folders made for it
            with contextlib.suppress(OSError):
                folder.rmdir()


def _make_folder(folder: Path) -> list[Path]:
    """Creates `folder` and any missing parents; returns those it created, outermost first."""
    missing = [parent for parent in (folder, *folder.parents) if not parent.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WriteError(f"cannot create the folder {folder}: {error.strerror or error}") from None
    return list(reversed(missing))


def _temporary(text: str, out: Path) -> Path:
    """`text` in a new file beside `out`, for validation before it is linked into place."""
    folder = out.parent
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{out.stem}.", suffix=".importing.yaml", dir=folder
        )
    except OSError as error:
        raise WriteError(f"cannot write in {folder}: {error.strerror or error}") from None
    with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as file:
        file.write(text)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(temporary, 0o666 & ~mask)  # a deck file as any other the user writes, not 0600
    return Path(temporary)


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
