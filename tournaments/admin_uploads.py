"""The admin's "add bot version" form: an upload that goes through upload_bot_version, like every other upload."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model

from engine import game_names
from tournaments.bot_lifecycle import BadUpload, check_bot_upload, upload_bot_version
from tournaments.models import BotVersion


def _game_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in game_names()]


class BotVersionUploadForm(forms.ModelForm):
    owner = forms.ModelChoiceField(queryset=get_user_model().objects.order_by("username"))
    bot_name = forms.SlugField(max_length=64, help_text="the owner's bot; a new name creates the bot")
    game = forms.ChoiceField(choices=_game_choices)
    file = forms.FileField(help_text="a .py file, or a .zip with main.py at its root or in one top folder")
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    class Meta:
        model = BotVersion
        fields: list[str] = []

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        upload = data["file"]
        self.data_bytes = upload.read()
        try:
            check_bot_upload(data["owner"], data["bot_name"], data["game"], upload.name, self.data_bytes)
        except BadUpload as exc:
            self.add_error("file", str(exc))
        return data

    def upload(self) -> BotVersion:
        """Store the version (the admin's transaction commits it, then validation is enqueued)."""
        data = self.cleaned_data
        return upload_bot_version(data["owner"], data["bot_name"], data["game"], data["file"].name, self.data_bytes,
                                  data["description"])
