"""Indexes that Django's own classes cannot declare for every database the site runs on."""

from django.apps import apps as django_apps
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.core.exceptions import ImproperlyConfigured
from django.db.backends.ddl_references import Statement
from django.db.models.functions import Upper


class PostgresOnlyGinIndex(GinIndex):
    """A GIN index on PostgreSQL, declared for every database and made on PostgreSQL only.

    The name searches' trigram indexes (UPPER(column) gin_trgm_ops: what icontains and istartswith compile
    to) need pg_trgm and GIN, which SQLite has neither of. Declared as a plain GinIndex, Django would write
    `USING gin` for SQLite whenever it makes the table's indexes there: creating the tables from the models,
    or rebuilding a table for a later AddField or AlterField on SQLite, which would then fail. Here its
    statements are empty on any other database: the index is in Django's state everywhere, and in the
    database on PostgreSQL only (tests/ratings/test_schema_matches_models.py knows SQLite lacks it).
    """

    def create_sql(self, model, schema_editor, using="", **kwargs):
        if schema_editor.connection.vendor != "postgresql":
            return Statement("")
        if not django_apps.is_installed("django.contrib.postgres"):
            # Its AppConfig.ready() makes OpClass a wrapper of index expressions: without it Django writes
            # `(UPPER("name") gin_trgm_ops)`, which PostgreSQL refuses.
            raise ImproperlyConfigured(f"{self.name}: OpClass needs django.contrib.postgres in INSTALLED_APPS")
        return super().create_sql(model, schema_editor, using=using, **kwargs)

    def remove_sql(self, model, schema_editor, **kwargs):
        if schema_editor.connection.vendor != "postgresql":
            return Statement("")
        return super().remove_sql(model, schema_editor, **kwargs)


def trigram_search_index(*field_names: str, name: str) -> PostgresOnlyGinIndex:
    """A trigram index on UPPER(field) for each of `field_names`, for case-insensitive substring searches."""
    return PostgresOnlyGinIndex(*(OpClass(Upper(field), name="gin_trgm_ops") for field in field_names), name=name)
