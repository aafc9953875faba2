from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self):
        from ratings import signals  # noqa: F401  (connects the receivers)
