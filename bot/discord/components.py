"""Message components as every button module builds them: a button with an explicit
custom_id, and a view that discord.py need not keep.

Shared by `buttons`, `review` and `reports`, which import each other only one way.
"""

from __future__ import annotations

from typing import Any

import discord

Button = discord.ui.Button[discord.ui.View]


def button(
    custom_id: str,
    label: str,
    style: discord.ButtonStyle,
    disabled: bool = False,
    row: int | None = None,
) -> Button:
    return discord.ui.Button(
        label=label, custom_id=custom_id, style=style, disabled=disabled, row=row
    )


def stopped_view(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view of dynamic items, already stopped: clicks reach them by custom_id pattern
    (`buttons.DYNAMIC_ITEMS`), so discord.py need not keep the view, nor (for an ephemeral
    reply) a 15-minute timer per message sent."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()
    return view
