"""Values bound on SQLite's own cursor (`bot.storage.sqlite.compiled.bind`) are what SQLAlchemy
would store: the click path's datetimes are worked out once per moment and must not differ."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.storage.sqlite.compiled import bind, pieces


def test_one_moment_in_any_zone_is_stored_as_the_same_utc_text() -> None:
    in_utc = datetime(2026, 12, 4, 6, 0, 0, 250, tzinfo=UTC)
    in_dhaka = datetime(2026, 12, 4, 12, 0, 0, 250, tzinfo=ZoneInfo("Asia/Dhaka"))
    assert bind(in_utc) == "2026-12-04 06:00:00.000250"
    assert bind(in_dhaka) == "2026-12-04 06:00:00.000250"
    assert bind(in_utc) == "2026-12-04 06:00:00.000250"  # worked out once, the same after


def test_a_naive_datetime_is_refused_every_time() -> None:
    for _ in range(2):
        with pytest.raises(ValueError, match="naive datetime"):
            bind(datetime(2026, 12, 4, 6, 0))


def test_other_values_bind_as_sqlalchemy_binds_them() -> None:
    assert [bind(v) for v in ("x", 3, None, True, False, 1.5)] == ["x", 3, None, 1, 0, 1.5]


def test_many_rows_are_written_in_pieces_of_a_few_sizes() -> None:
    """So SQLite prepares a many-row statement for a handful of row counts, not for each."""
    sizes: set[int] = set()
    for count in range(0, 400):
        got = [len(piece) for piece in pieces(list(range(count)), 90)]
        assert sum(got) == count
        sizes.update(got)
    assert sizes == {90, 64, 32, 16, 8, 4, 2, 1}
