from django.apps import AppConfig


class ReplaysConfig(AppConfig):
    name = "replays"
    verbose_name = "Replays"

    def ready(self) -> None:
        from replays import signals  # noqa: F401  (connects the receivers of tournaments.signals)
