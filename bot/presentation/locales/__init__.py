"""UI strings in English and Bengali, kept in TOML catalogs beside this file.

`text(locale, key, **params)` formats a string; numbers are written in Bengali digits in
`bn`. A key missing from a catalog falls back to English (a test keeps the catalogs equal).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

LOCALES = ("en", "bn")
FALLBACK = "en"
_BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = str(value)
    return flat


@cache
def catalog(locale: str) -> dict[str, str]:
    """`{locale}.toml` merged with the adapters' own `{locale}.<adapter>.toml` files."""
    here = Path(__file__).parent
    flat: dict[str, str] = {}
    for path in [here / f"{locale}.toml", *sorted(here.glob(f"{locale}.*.toml"))]:
        with path.open("rb") as f:
            flat.update(_flatten(tomllib.load(f)))
    return flat


def digits(locale: str, value: object) -> str:
    """A number as the locale writes it: ৮/৮ in Bengali."""
    s = str(value)
    return s.translate(_BN_DIGITS) if locale == "bn" else s


def text(locale: str, key: str, /, **params: object) -> str:
    """The catalog string `key` in `locale`, with `{name}` placeholders filled."""
    loc = locale if locale in LOCALES else FALLBACK
    template = catalog(loc).get(key) or catalog(FALLBACK).get(key)
    if template is None:
        raise KeyError(f"no UI string {key!r}")
    shown = {
        k: digits(loc, v) if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in params.items()
    }
    return template.format(**shown)


def language_name(locale: str) -> str:
    """A language's name in that language (what a language button says)."""
    names = {"en": "English", "bn": "বাংলা"}
    return names.get(locale, locale)
