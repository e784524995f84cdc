"""`python -m bot` is the same as the `quizbot` command."""

from bot.cli import main

raise SystemExit(main())
