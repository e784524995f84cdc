"""The one language precedence: the platform's, the person's, the server's, else the deck's."""

from __future__ import annotations

from bot.domain.language import language

BILINGUAL = ("bn", "en")


def test_each_step_of_the_precedence() -> None:
    pick = language
    assert pick(BILINGUAL, platform="bn", mine="en", server="en", fallback="en") == "bn"
    assert pick(BILINGUAL, platform="fr", mine="en", server="bn", fallback="bn") == "en"
    assert pick(BILINGUAL, platform=None, mine=None, server="en", fallback="bn") == "en"
    assert pick(BILINGUAL, platform="fr", mine="de", server="ja", fallback="bn") == "bn"


def test_only_an_offered_language_is_chosen() -> None:
    assert language(("en",), platform="bn", mine="bn", server="bn", fallback="en") == "en"
