"""Decks: the model, the deck file format, and reading, checking and loading deck files."""
