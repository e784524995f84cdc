"""Admission: one person's clicks in order, everyone else's side by side, and shutdown."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.service.admission import Admission, Closing


async def test_one_persons_clicks_are_answered_one_after_another_in_order() -> None:
    admission = Admission()
    order: list[int] = []

    async def click(i: int) -> None:
        async with admission.admit(("slack:T1", "U1")):
            await asyncio.sleep(0.03 if i == 0 else 0)  # the first is the slowest
            order.append(i)

    await asyncio.gather(*(click(i) for i in range(3)))
    assert order == [0, 1, 2]


async def test_different_people_are_answered_side_by_side() -> None:
    admission = Admission()
    inside = 0
    most = 0

    async def click(user: str) -> None:
        nonlocal inside, most
        async with admission.admit(("slack:T1", user)):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.02)
            inside -= 1

    await asyncio.gather(*(click(f"U{i}") for i in range(10)))
    assert most == 10


async def test_a_ticket_carries_the_deadline_from_the_clicks_arrival() -> None:
    admission = Admission(deadline=2.5)
    arrived = time.monotonic() - 1.0
    async with admission.admit(None, arrived) as ticket:
        assert ticket.arrived == arrived
        assert ticket.deadline == pytest.approx(arrived + 2.5)


async def test_closing_refuses_new_clicks_and_waits_for_the_admitted_ones() -> None:
    admission = Admission()
    release = asyncio.Event()
    answered: list[str] = []

    async def click() -> None:
        async with admission.admit(("slack:T1", "U1")):
            await release.wait()
            answered.append("U1")

    task = asyncio.create_task(click())
    await asyncio.sleep(0)
    assert admission.pending == 1
    admission.close()
    with pytest.raises(Closing):
        async with admission.admit(("slack:T1", "U2")):
            raise AssertionError("admitted while closing")
    assert not await admission.finished(0.05)
    release.set()
    assert await admission.finished(1.0)
    await task
    assert answered == ["U1"] and admission.pending == 0
