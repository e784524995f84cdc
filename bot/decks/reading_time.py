"""How long a question and its choices take to read: a game gives each question a fixed time,
and a player who cannot finish reading in it guesses (and the question-health report then
calls the question too hard).

The rates are deliberately those of an ordinary reader, not a fast one:
- Latin-script text (English, code, numbers): 200 words a minute. Brysbaert (2019, "How many
  words do we read per minute?", Journal of Memory and Language 109) puts silent reading of
  English non-fiction at 238 words a minute on average (most adults 175-300), and lower for
  readers of English as a second language; technical text full of identifiers and figures is
  slower than the average non-fiction, so 200.
- Bengali script: 400 aksharas (written syllables: a consonant or a conjunct with its vowel
  sign, or an independent vowel) a minute. Trauzettel-Klosinski and Dietz (2012, "Standardized
  assessment of reading performance: the new International Reading Speed Texts IReST",
  Investigative Ophthalmology & Visual Science 53(9)) measured, over 17 languages, 184 words
  and 370 syllables a minute on average: about 2 syllables a word. At 200 words a minute that
  is 400 syllables, and Bengali script writes about one syllable per akshara (Bengali is not
  among the 17). Counting aksharas, not code points, keeps a conjunct (ক্ষ, three code points)
  from counting as three.
A Bengali text's Latin-script words (API names, numbers) are counted as words, at the English
rate.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from bot.decks.model import Question

WORDS_PER_MINUTE = 200
AKSHARAS_PER_MINUTE = 400

_HASANTA = "\u09cd"
_BENGALI_CONSONANT = re.compile("[\u0995-\u09b9\u09dc-\u09df]")
_BENGALI_VOWEL = re.compile("[\u0985-\u0994]")
_BENGALI = re.compile("[\u0980-\u09ff]")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class ReadingTime:
    """What a text holds for a reader: words (non-Bengali) and Bengali aksharas."""

    words: int = 0
    aksharas: int = 0

    @property
    def seconds(self) -> float:
        return 60 * (self.words / WORDS_PER_MINUTE + self.aksharas / AKSHARAS_PER_MINUTE)

    def __add__(self, other: ReadingTime) -> ReadingTime:
        return ReadingTime(self.words + other.words, self.aksharas + other.aksharas)

    def measure(self) -> str:
        """What was counted, for a warning: "94 words", "310 aksharas and 12 words"."""
        parts = []
        if self.aksharas:
            parts.append(f"{self.aksharas} Bengali aksharas at {AKSHARAS_PER_MINUTE} a minute")
        if self.words or not parts:
            parts.append(f"{self.words} words at {WORDS_PER_MINUTE} a minute")
        return " and ".join(parts)


def reading_time(text: str) -> ReadingTime:
    """A text's words and aksharas: a whitespace-separated word with Bengali letters counts
    its aksharas, any other counts as a word."""
    words = aksharas = 0
    for word in _WORD.findall(unicodedata.normalize("NFC", text)):
        if _BENGALI.search(word):
            aksharas += _aksharas(word)
            # "GPU-তে", "rank-এর": a Latin term glued to a Bengali ending is read as a word too.
            words += 1 if re.search("[A-Za-z0-9]", word) else 0
        else:
            words += 1
    return ReadingTime(words, aksharas)


def question_reading_time(question: Question, locale: str) -> ReadingTime:
    """The question's text and its choices in one locale, as a game's message shows them."""
    total = reading_time(question.text[locale])
    for choice in question.choices:
        total = total + reading_time(choice.text[locale])
    return total


def _aksharas(word: str) -> int:
    """Written syllables: each independent vowel, and each consonant that does not follow a
    hasanta (the later consonants of a conjunct belong to its akshara)."""
    word = word.replace("\u200c", "").replace("\u200d", "")
    count = len(_BENGALI_VOWEL.findall(word))
    for index, char in enumerate(word):
        if _BENGALI_CONSONANT.match(char) and (index == 0 or word[index - 1] != _HASANTA):
            count += 1
    return count
