"""Stage formats (formats.md "Words" — Stage): one module each, behind ``base.StageFormat``."""
