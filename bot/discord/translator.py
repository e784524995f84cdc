"""Command descriptions from the UI catalogs, for the Discord locales a catalog covers.

A translatable string names its catalog key (`locale_str(text, key=...)`). Discord has 32
locales and no Bengali, so today this covers en-US and en-GB; a catalog added for a language
Discord has (say `hi.toml`) is picked up without touching the commands.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.presentation.locales import LOCALES, text


def catalog_string(key: str) -> app_commands.locale_str:
    """The English text of `key`, translatable by `CatalogTranslator`."""
    return app_commands.locale_str(text("en", key), key=key)


class CatalogTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        language = locale.value.split("-")[0]
        if not isinstance(key, str) or language not in LOCALES:
            return None
        return text(language, key)
