"""The composition root: every service built once, and none of them a way to the store.

ARCHITECTURE.md promises that adapters never reach the store; import-linter forbids them to
import `bot.storage` (pyproject.toml), and these tests hold the other door shut: nothing an
adapter receives (`Services` and the public attributes of each service in it) is the store.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bot.bootstrap import App, build_app, operations
from bot.config import load_config
from bot.service.services import Services
from bot.storage.memory import MemoryStore
from tests import factories


async def app_on_memory(tmp_path: Path) -> App:
    (tmp_path / "config.toml").write_text("[questions]\nshipped = false\n", encoding="utf-8")
    config = load_config(str(tmp_path / "config.toml"), env={})
    return await build_app(config, store=MemoryStore(), library=factories.library())


def test_services_has_no_store_field() -> None:
    names = {field.name for field in dataclasses.fields(Services)}
    assert "store" not in names
    assert Services.__dataclass_params__.frozen  # type: ignore[attr-defined]


async def test_nothing_an_adapter_receives_is_the_store(tmp_path: Path) -> None:
    app = await app_on_memory(tmp_path)
    try:
        services = app.services
        for field in dataclasses.fields(services):
            service = getattr(services, field.name)
            assert service is not app.store, field.name
            public = {k: v for k, v in vars(service).items() if not k.startswith("_")}
            for name, value in public.items():
                assert value is not app.store, f"services.{field.name}.{name}"
    finally:
        await app.close()


async def test_one_publishing_and_one_delivery_registry_are_shared(tmp_path: Path) -> None:
    app = await app_on_memory(tmp_path)
    try:
        s = app.services
        assert s.scheduler.publishing is s.publishing
        assert s.scheduler.deliveries is s.deliveries
        assert s.games.deliveries is s.deliveries
        assert s.scheduler.digest is not None and s.scheduler.digest.deliveries is s.deliveries
        assert s.scheduler.digest.faults is s.scheduler.faults
    finally:
        await app.close()


async def test_the_cli_use_cases_open_the_database_only_when_one_needs_it(tmp_path: Path) -> None:
    """`quizbot export --server` on a folder where the bot never ran writes nothing and
    creates no database; `forget` opens (and migrates) it, and closes it again."""
    (tmp_path / "config.toml").write_text(
        '[database]\nurl = "sqlite:///q.db"\n[questions]\nshipped = false\n', encoding="utf-8"
    )
    config = load_config(str(tmp_path / "config.toml"), env={})
    async with operations(config) as ops:
        assert await ops.export("local", tmp_path) == {}
    assert not (tmp_path / "q.db").exists()
    async with operations(config) as ops:
        assert await ops.forget("local", "nobody") == 0
    assert (tmp_path / "q.db").exists()
