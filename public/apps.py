from django.apps import AppConfig


class PublicConfig(AppConfig):
    """The pages every visitor reads: home, rankings, players, teams and events."""

    name = "public"
    verbose_name = "Public pages"
