"""Logs and metrics, the same on every platform."""
