"""Every relative link in README.md and docs/*.md leads somewhere: the file exists and, with
a #fragment, the heading it names is there (GitHub's anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|\!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def outside_fences(text: str) -> list[str]:
    """The page's lines outside code blocks."""
    kept, inside = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            inside = not inside
        elif not inside:
            kept.append(line)
    return kept


def prose(text: str) -> str:
    """The page without its code, where brackets are not links."""
    return "\n".join(re.sub(r"`[^`]*`", "", line) for line in outside_fences(text))


def anchors(page: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped (inline code keeps its text),
    spaces to hyphens, repeats numbered."""
    found: set[str] = set()
    for line in outside_fences(page.read_text(encoding="utf-8")):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        name, n = slug, 1
        while name in found:
            name, n = f"{slug}-{n}", n + 1
        found.add(name)
    return found


def links(page: Path) -> list[str]:
    out = []
    for m in LINK.finditer(prose(page.read_text(encoding="utf-8"))):
        target = m.group(1) or m.group(2)
        if not re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            out.append(target)
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{target}: no heading #{fragment}")
    assert broken == []


def test_the_readme_is_short_and_links_every_guide() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    linked = {Path(t.partition("#")[0]).name for t in links(ROOT / "README.md")}
    for guide in (ROOT / "docs").glob("*.md"):
        assert guide.name in linked, f"README.md does not link docs/{guide.name}"


def test_the_checker_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n## A `code` heading\n\n[ok](#title) [ok](#a-code-heading) [bad](#nope) "
        "[gone](missing.md) `[not](a-link.md)`\n",
        encoding="utf-8",
    )
    assert links(page) == ["#title", "#a-code-heading", "#nope", "missing.md"]
    assert {"title", "a-code-heading"} <= anchors(page)
    assert "nope" not in anchors(page)


NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def test_a_count_of_shipped_decks_in_the_docs_is_the_count_of_shipped_decks() -> None:
    shipped = len(list((ROOT / "questions").glob("*.yaml")))
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for said in re.findall(r"\b(\w+) decks ship\b", text, flags=re.IGNORECASE):
            count = NUMBERS.get(said.lower(), int(said) if said.isdigit() else None)
            assert count == shipped, f"{page.name}: '{said} decks ship', but {shipped} do"
        assert "both shipped decks" not in text, page.name


def test_slack_guide_names_every_subcommand_help_lists() -> None:
    """docs/slack.md says what `/quiz help` lists: every subcommand the bot has."""
    source = (ROOT / "bot" / "slack" / "commands.py").read_text(encoding="utf-8")
    handlers = source[source.index("self._handlers: dict[str, Handler] = {") :]
    names = set(re.findall(r'"(\w+)":', handlers[: handlers.index("}")])) - {"help"}
    guide = (ROOT / "docs" / "slack.md").read_text(encoding="utf-8")
    (said,) = [part for part in guide.split("\n\n") if "`/quiz help` lists" in part]
    named = set(re.findall(r"`(?:/quiz )?(\w+)`", said)) | {"post"}  # the block above it
    assert names - named == set()


def test_discord_guide_names_every_quizadmin_command() -> None:
    source = (ROOT / "bot" / "discord" / "commands.py").read_text(encoding="utf-8")
    admin = source[source.index('name="quizadmin"') :]
    names = set(re.findall(r'@app_commands\.command\(name="(\w+)"', admin))
    names |= set(re.findall(r"^    (\w+) = \w+Commands\(\)$", admin, re.M))  # groups
    assert {"schedule", "deck"} <= names
    guide = (ROOT / "docs" / "discord.md").read_text(encoding="utf-8")
    said = guide[guide.index("Admin commands are a separate command") :].split("\n\n")[0]
    assert names - set(re.findall(r"`(\w+)`", said)) == set()
