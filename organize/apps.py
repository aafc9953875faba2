from django.apps import AppConfig


class OrganizeConfig(AppConfig):
    """How results arrive: the organizers' pages and the admins' bundle import."""

    name = "organize"
    verbose_name = "Reporting results"
