"""`{% seat_name seat %}`: a seat's bot as the reader may see it (tournaments.visibility), linked to its page."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html

from tournaments import visibility
from tournaments.models import Seat

register = template.Library()


@register.simple_tag(takes_context=True)
def seat_name(context: dict[str, Any], seat: Seat) -> str:
    user = context["request"].user
    version = seat.bot_version
    if not visibility.can_see_bot(user, version.bot):
        return visibility.PRIVATE_LABEL
    return format_html('<a href="{}">{}</a>', reverse("pages:bot", args=[version.bot_id]), version.label)
