"""HTML to plain text: what a chat message can show, and what it had to leave out."""

from __future__ import annotations

from bot.decks.formats.htmltext import html_to_text


def test_paragraphs_breaks_links_and_entities() -> None:
    text, dropped = html_to_text(
        '<p>One &amp; <b>two</b></p><p>Three<br/>four <a href="https://x.org/a">docs</a></p>'
        '<a href="https://y.org">https://y.org</a> <a href="mailto:a@b.c">a@b.c</a>'
    )
    assert text == "One & two\nThree\nfour docs (https://x.org/a)\nhttps://y.org a@b.c"
    assert dropped == set()


def test_media_is_dropped_and_named() -> None:
    text, dropped = html_to_text(
        'A <img src="x.png" alt="x"> B <video src="v.mp4">fallback</video> '
        '<a href="@@PLUGINFILE@@/f.pdf">the file</a> <iframe src="https://e.org"></iframe>C'
    )
    assert text == "A B the file C"
    assert dropped == {"image", "video", "linked file", "embedded page"}


def test_whitespace_lists_pre_and_scripts() -> None:
    text, _ = html_to_text(
        "<ul>\n<li>a</li>\n<li>b\n c</li></ul><pre>x = 1\n    y</pre><script>alert(1)</script>"
    )
    assert text == "- a\n- b c\nx = 1\n    y"
    kept, _ = html_to_text("line one\nline   two", keep_newlines=True)
    assert kept == "line one\nline two"
