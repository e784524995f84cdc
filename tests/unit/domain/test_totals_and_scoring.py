"""Points, totals, streaks and ranks as plain functions: the rules every store keeps."""

from datetime import UTC, datetime

from bot.domain.records import Player, ServerSettings, Standing, Totals
from bot.domain.scoring import boards, meeting_points, ranked
from bot.domain.totals import DailyPost, after_answer, counted, streak_of, totals_of

T = datetime(2026, 3, 2, 9, tzinfo=UTC)


def test_a_run_answer_scores_only_right_at_the_first_meeting() -> None:
    assert meeting_points(correct=True, first_meeting=True) == 1
    assert meeting_points(correct=True, first_meeting=False) == 0
    assert meeting_points(correct=False, first_meeting=True) == 0


def test_an_answer_counts_in_its_week_month_and_all_time_per_deck_and_overall() -> None:
    # Sunday 22:30 UTC is already Monday in Dhaka: the week there is the next one
    sunday = datetime(2026, 3, 1, 22, 30, tzinfo=UTC)
    assert boards(sunday, "UTC", "d") == [
        ("w2026-02-23", "d"),
        ("w2026-02-23", None),
        ("m2026-03", "d"),
        ("m2026-03", None),
        ("all", "d"),
        ("all", None),
    ]
    assert boards(sunday, "Asia/Dhaka", "d")[0] == ("w2026-03-02", "d")


def test_totals_count_wrong_answers_as_answered_only() -> None:
    assert totals_of([]) == Totals()
    assert totals_of([(True, 1), (False, 0), (True, 0)]) == Totals(3, 2, 1)
    assert counted(Totals(3, 2, 1), True, 1) == Totals(4, 3, 2)


def test_streak_stops_at_the_first_miss_but_not_at_todays_open_post() -> None:
    def days(*marks: str) -> list[DailyPost]:
        # newest first; "a" answered, "o" open and unanswered, "m" closed and missed
        return [DailyPost(open=m == "o", answered=m == "a") for m in marks]

    assert streak_of(days()) == 0
    assert streak_of(days("a", "a", "m", "a")) == 2
    assert streak_of(days("o", "a", "a")) == 2  # today's question may still be answered
    assert streak_of(days("a", "o", "a")) == 1  # an older open one is missed
    assert streak_of(days("m", "a")) == 0


def test_a_clicks_reply_facts_are_worked_out_from_those_before_it() -> None:
    before = Player(ServerSettings("s", season=2), None, Totals(3, 2, 2), streak=4)

    def after(season: int = 2, scheduled: bool = True, newest: bool = True) -> Player | None:
        return after_answer(
            before,
            season=season,
            scheduled=scheduled,
            newest_scheduled=newest,
            correct=True,
            points=1,
        )

    assert after() == Player(before.server, None, Totals(4, 3, 3), streak=5)
    assert after(scheduled=False) == Player(before.server, None, Totals(4, 3, 3), streak=4)
    assert after(season=1) == Player(before.server, None, Totals(3, 2, 2), streak=5)
    assert after(newest=False) is None  # only a read can tell


def test_ranks_are_shared_by_ties_and_ties_go_to_whoever_got_there_first() -> None:
    later = T.replace(hour=10)
    rows = ranked([("zed", 2, T), ("amy", 2, later), ("kim", 1, T), ("nil", 0, T)])
    assert rows == [
        Standing("zed", 2, T, 1),
        Standing("amy", 2, later, 1),
        Standing("kim", 1, T, 3),
    ]
