"""HTML to plain text: what a chat message can show, and what it had to leave out."""

from __future__ import annotations

import time

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


def test_superscripts_and_subscripts_keep_their_meaning() -> None:
    # Issue 23 D3: O(n<sup>2</sup>) read "O(n2)" and 2<sup>n</sup> read "2n" beside "2*n".
    cases = {
        "O(n<sup>2</sup>)": "O(n²)",
        "2<sup>n</sup>": "2ⁿ",
        "2<sup>n+1</sup>": "2ⁿ⁺¹",
        "H<sub>2</sub>O": "H₂O",
        "e<sup>iπ</sup>": "e^(iπ)",
        "x<sub>β</sub>": "x_β",
        "a<sub>max</sub>": "aₘₐₓ",
        "x<sub>i,j</sub>": "x_(i,j)",
        "2<sup><b>10</b></sup> bytes": "2¹⁰ bytes",
        "x<sup>2<sup>n</sup></sup>": "x²ⁿ",
        "<sup> </sup>x": "x",
    }
    assert {html: html_to_text(html)[0] for html in cases} == cases


def test_nested_links_are_read_in_linear_time() -> None:
    # Issue 22 finding 6: 32,000 nested <a> (533 KB) took 18.7 s, each </a> re-reading all the
    # text since its <a>. Links do not nest in HTML: a new <a> closes the open one, as in a
    # browser, so each link's text is read once. The bound is generous (it takes about a
    # second on a loaded machine, in Python's own HTML parser); timing targets live in bench/.
    count = 32_000
    html = '<a href="https://x.org">x' * count + "</a>" * count
    started = time.perf_counter()
    text, _ = html_to_text(html)
    elapsed = time.perf_counter() - started
    assert text == "x (https://x.org)" * count
    assert elapsed < 6, elapsed
