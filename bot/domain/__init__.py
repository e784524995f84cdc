"""The quiz's rules and records, in plain Python: no storage, no platform, no service."""
