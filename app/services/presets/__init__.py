"""Preset rules of the seeds' events: each module exposes its ``RULES`` by preset name (app/wiring.py)."""
