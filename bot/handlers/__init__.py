"""Event handlers, one module per concern, composed in one visible list."""
from bot.handlers import events
from bot.routing import Router

router = Router(events.router)
