"""{% signup_open as open %}: whether the pages offer sign-up (LUDUS_SIGNUP, tournaments/pages/signup.py)."""

from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag
def signup_open() -> bool:
    return bool(settings.LUDUS_SIGNUP)
