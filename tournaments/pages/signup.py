"""Sign-up for bot authors (docs/operations.md#sign-up): a username, a password and an optional email make an
account that may upload bots; staff rights only ever come from an admin.

Throttled by the login's rules: at most LUDUS_LOGIN_FAILURES sign-up attempts from one address per
LUDUS_LOGIN_COOLOFF_MINUTES (each further try starts the wait again), counted in the cache, which several web
processes share through CACHE_URL. LUDUS_SIGNUP=0 turns it off: the page says so and makes no account.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import UserCreationForm
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from tournaments.bot_lifecycle import TRYOUT_USER
from tournaments.builtins import SYSTEM_USER

RESERVED = {SYSTEM_USER, TRYOUT_USER}  # the system's own users: whoever held one would own the built-in bots


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="optional: only for the organisers to reach you")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = str(super().clean_username())
        if username.lower() in RESERVED:
            raise forms.ValidationError("This username is the system's own; choose another.")
        return username


def attempts_left(request: HttpRequest) -> bool:
    """Counts this attempt against its address; False once the address made LUDUS_LOGIN_FAILURES in the cool-off."""
    key = f"ludus:signup:{request.META.get('REMOTE_ADDR', '')}"
    cooloff = int(settings.AXES_COOLOFF_TIME.total_seconds())
    cache.add(key, 0, cooloff)
    count = cache.incr(key)
    if count > settings.AXES_FAILURE_LIMIT:
        cache.touch(key, cooloff)
        return False
    return True


def signup(request: HttpRequest) -> HttpResponse:
    if not settings.LUDUS_SIGNUP:
        return render(request, "registration/signup.html", {"closed": True}, status=403)
    if request.user.is_authenticated:
        return redirect("pages:upload")
    if request.method == "POST" and not attempts_left(request):
        context: dict[str, Any] = {"refused": True, "limit": settings.AXES_FAILURE_LIMIT,
                                   "cooloff": settings.AXES_COOLOFF_TIME}
        return render(request, "registration/signup.html", context, status=429)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("pages:upload")
    return render(request, "registration/signup.html", {"form": form})
