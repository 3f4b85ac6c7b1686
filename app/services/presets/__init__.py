"""Preset rules of the seeds' events; importing this package registers them in app.services.rules.RULES."""
