"""The pages: the public event pages, the projector, printed sheets, the player's page and the
organizer's console, rendered by Jinja2 over the same services the API calls (docs/web.md)."""
