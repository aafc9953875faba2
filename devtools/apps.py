from django.apps import AppConfig


class DevtoolsConfig(AppConfig):
    """The demo world, the benchmark and their commands; no product module imports them."""

    name = "devtools"
    verbose_name = "Development tools"
