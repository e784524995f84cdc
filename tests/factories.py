"""Small decks built in code, so engine tests do not depend on the shipped deck's content."""

from datetime import datetime

from bot.decks.model import Choice, Deck, DeckLibrary, Question
from bot.domain.records import PostAnswer, PostAnswerOutcome, PostRecord
from bot.service.ports import QuizStore


def question(i: int, shuffle: bool = True) -> Question:
    return Question(
        id=f"q{i}",
        text={"en": f"Question {i}?", "bn": f"প্রশ্ন {i}?"},
        choices=(
            Choice({"en": f"right {i}", "bn": f"ঠিক {i}"}),
            Choice({"en": f"wrong {i}a", "bn": f"ভুল {i}ক"}, why={"en": "why a", "bn": "কেন ক"}),
            Choice({"en": f"wrong {i}b", "bn": f"ভুল {i}খ"}, why={"en": "why b", "bn": "কেন খ"}),
        ),
        answer=0,
        explanation={"en": f"Because {i}.", "bn": f"কারণ {i}।"},
        shuffle=shuffle,
        position=i,
    )


def deck(deck_id: str = "demo", n: int = 3, locales: tuple[str, ...] = ("en", "bn")) -> Deck:
    return Deck(
        id=deck_id,
        title={"en": f"Demo {deck_id}", "bn": f"ডেমো {deck_id}"},
        locales=locales,
        questions=tuple(question(i) for i in range(1, n + 1)),
    )


def library(*decks: Deck) -> DeckLibrary:
    return DeckLibrary(list(decks) or [deck()])


async def click(
    store: QuizStore, post: PostRecord, user_id: str, choice: int, correct: bool, at: datetime
) -> PostAnswerOutcome:
    """A store-level click decided in advance: `choice`, right or not."""
    answer = PostAnswer(post, user_id, choice, correct, 1 if correct else 0, at)
    return await store.answer_post(answer)
