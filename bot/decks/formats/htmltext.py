"""HTML to the plain text a chat message shows, and what had to be left out.

Moodle texts are HTML. A quiz message is plain text, so paragraphs and line breaks become
newlines, links keep their address as "text (URL)", entities are decoded, superscripts and
subscripts become Unicode ones ("O(n²)", "H₂O") or "^" and "_" where Unicode has none, and
images, audio and video are dropped: the caller warns about each kind, since the question may
need them.

The work is linear in the input: links do not nest (a new <a> closes the open one, as browsers
do), and only the outermost <sup> or <sub> is rewritten, so no text is read twice.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

PLUGINFILE = "@@PLUGINFILE@@"
"""How Moodle exports point at files stored with a question; those files are not imported."""

_BLOCKS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figcaption"),
        *("figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "ol"),
        *("p", "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul"),
    }
)
_MEDIA = {"img": "image", "audio": "audio", "video": "video", "object": "media", "embed": "media"}
_MEDIA_CONTAINERS = frozenset({"audio", "video", "object", "iframe"})
_SILENT = frozenset({"script", "style", "head", "title"})
_SPACES = re.compile(r"[ \t\r\f\v\n]+")
_BREAK = "\x00"
"""Stands for a hard line break while spaces are collapsed."""
_HARD_SPACE = "\x01"
"""Stands for a space inside <pre>, which is kept."""
_BLOCK = "\x02"
"""Stands for the edge of a block (paragraph, list item): a line break, however many meet."""
_BLOCK_RUN = re.compile(f"{_BREAK}*(?: ?{_BLOCK})+ ?")
_ONE_LINE = re.compile("[\t\r\f\v\n\xa0\x00-\x02]|  ")
"""What `_finish` has to change in a text beyond its ends: without it, a text is only stripped."""
_SUPERSCRIPTS = str.maketrans(
    "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ",
)
_SUBSCRIPTS = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
_SCRIPTS = {"sup": ("^", _SUPERSCRIPTS), "sub": ("_", _SUBSCRIPTS)}
_ELEMENTS = frozenset(
    {
        *("a", "abbr", "acronym", "address", "area", "article", "aside", "audio", "b", "base"),
        *("bdi", "bdo", "big", "blink", "blockquote", "body", "br", "button", "canvas"),
        *("caption", "center", "cite", "code", "col", "colgroup", "data", "datalist", "dd"),
        *("del", "details", "dfn", "dialog", "dir", "div", "dl", "dt", "em", "embed"),
        *("fieldset", "figcaption", "figure", "font", "footer", "form", "frame", "frameset"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "i"),
        *("iframe", "img", "input", "ins", "kbd", "label", "legend", "li", "link", "main"),
        *("map", "mark", "math", "menu", "meta", "meter", "nav", "nobr", "noscript", "object"),
        *("ol", "optgroup", "option", "output", "p", "param", "picture", "pre", "progress"),
        *("q", "rp", "rt", "ruby", "s", "samp", "script", "section", "select", "small"),
        *("source", "span", "strike", "strong", "style", "sub", "summary", "sup", "svg"),
        *("table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "time"),
        *("title", "tr", "track", "tt", "u", "ul", "var", "video", "wbr"),
    }
)
"""HTML's elements: a tag of any other name (`List<String>`, `Map<K, V>`) is text."""
_LT = re.compile("<")
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
_ONE_TAG = re.compile(r"^<\s*/?\s*[A-Za-z][A-Za-z0-9-]*\s*/?\s*>$")


def _raised(tag: str, text: str) -> str:
    """`text` as a superscript or subscript: Unicode where every character has one, else ^ or _.

    "2<sup>n</sup>" must not read "2n" beside a choice "2*n": it reads "2ⁿ", and
    "e<sup>iπ</sup>" (π has no superscript) reads "e^(iπ)".
    """
    mark, table = _SCRIPTS[tag]
    stripped = text.strip()
    if not stripped:
        return text
    mapped = stripped.translate(table)
    if all(before != after for before, after in zip(stripped, mapped, strict=True)):
        return mapped
    return f"{mark}{stripped}" if len(stripped) == 1 else f"{mark}({stripped})"


class _TextParser(HTMLParser):
    def __init__(self, keep_newlines: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.keep_newlines = keep_newlines
        self.parts: list[str] = []
        self.dropped: set[str] = set()
        self._hidden = 0
        self._pre = 0
        self._link: tuple[str, int] | None = None
        self._script: tuple[str, int] | None = None
        self._script_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in _MEDIA:
            self.dropped.add(_MEDIA[tag])
        if tag == "iframe":
            self.dropped.add("embedded page")
        if tag in _SILENT or tag in _MEDIA_CONTAINERS:
            self._hidden += 1
            return
        if tag == "br":
            self.parts.append(_BREAK)
        elif tag in _BLOCKS:
            self.parts.append(_BLOCK)
            if tag == "li":
                self.parts.append("- ")
            if tag == "pre":
                self._pre += 1
        elif tag in ("td", "th"):
            self.parts.append(" ")
        elif tag == "a":
            self.close_link()  # links do not nest: a new one ends the open one, as in browsers
            self._link = ((found.get("href") or "").strip(), len(self.parts))
        elif tag in _SCRIPTS:
            self._script_depth += 1
            if self._script_depth == 1:
                self._script = (tag, len(self.parts))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _SILENT or tag in _MEDIA_CONTAINERS:
            self._hidden -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SILENT or tag in _MEDIA_CONTAINERS:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCKS:
            self.parts.append(_BLOCK)
            if tag == "pre":
                self._pre = max(0, self._pre - 1)
        elif tag == "a":
            self.close_link()
        elif tag in _SCRIPTS and self._script_depth:
            self._script_depth -= 1
            if self._script_depth == 0 and self._script is not None:
                kind, start = self._script
                self.parts[start:] = [_raised(kind, "".join(self.parts[start:]))]
                self._script = None
                if self._link is not None and self._link[1] > start:
                    self._link = (self._link[0], start)

    def close_link(self) -> None:
        """Ends the open link, if any: its address follows its text unless the text is it."""
        if self._link is None:
            return
        href, start = self._link
        self._link = None
        label = "".join(self.parts[start:])
        if PLUGINFILE in href:
            self.dropped.add("linked file")
            return
        if not href or href.startswith(("#", "javascript:")):
            return
        shown = " ".join(label.replace(_BREAK, " ").replace(_BLOCK, " ").split())
        if shown != href and href.removeprefix("mailto:") != shown:
            self.parts.append(f" ({href})" if shown else href)

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if self._pre:
            data = data.replace("\n", _BREAK).replace(" ", _HARD_SPACE)
        elif self.keep_newlines:
            data = data.replace("\r\n", "\n").replace("\n", _BREAK)
        self.parts.append(data)


def _text_tags(html: str) -> str:
    """`html` with each '<' that opens no complete HTML element or comment written as `&lt;`.

    So `List<String>` keeps its `<String>` instead of losing it as an unknown tag, and the
    parser never meets a construct left open (`<!--` without `-->`, `<b` without `>`), which
    Python's HTMLParser rescans from each later '<': quadratic. One pass over the '<'s.
    """
    starts = [match.start() for match in _LT.finditer(html)]
    if not starts:
        return html
    last_close = html.rfind("-->")
    parts: list[str] = []
    done = 0
    for number, start in enumerate(starts):
        following = starts[number + 1] if number + 1 < len(starts) else len(html)
        if html.startswith("<!--", start):
            keep = start + 4 <= last_close
        else:
            name = _TAG_NAME.match(html, start)
            keep = (
                name is not None
                and name.group(1).lower() in _ELEMENTS
                and html.find(">", start, following) >= 0
            )
        if not keep:
            parts.append(html[done:start])
            parts.append("&lt;")
            done = start + 1
    parts.append(html[done:])
    return "".join(parts)


def html_to_text(html: str, *, keep_newlines: bool = False) -> tuple[str, set[str]]:
    """Plain text for `html`, and the kinds of media left out ("image", "audio", ...).

    `keep_newlines` is for Moodle's auto-format text, where a newline in the source is a line
    break on the page; in HTML proper it is just a space. A text that is one tag and nothing
    else (a choice `<br>` in "Which tag breaks a line?") means the tag, and is kept as written.
    """
    if _ONE_TAG.match(html.strip()):
        return html.strip(), set()
    if "<" not in html and "&" not in html:  # plain text: what the parser would give, sooner
        plain = html.replace("\r\n", "\n").replace("\n", _BREAK) if keep_newlines else html
        return _finish(plain), set()
    parser = _TextParser(keep_newlines)
    parser.feed(_text_tags(html))
    parser.close()
    parser.close_link()  # an <a> left open
    return _finish("".join(parser.parts)), parser.dropped


def _finish(raw: str) -> str:
    """The parser's pieces as text: spaces collapsed, blocks and breaks made line breaks."""
    if _ONE_LINE.search(raw) is None:  # most texts: one line, single spaces
        return raw.strip()
    text = _SPACES.sub(" ", raw.replace("\xa0", " "))
    text = _BLOCK_RUN.sub(_BREAK, text)
    lines = [line.strip().replace(_HARD_SPACE, " ") for line in text.split(_BREAK)]
    joined = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", joined).strip()
