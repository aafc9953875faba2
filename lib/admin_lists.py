"""The admin's lists of tables of millions of rows: unfiltered, counted from the database's statistics; a
column's values to filter by read along its index; each row's action checkbox written without a template.

The admin counts the rows of the list shown to number its pages. Unfiltered,
that is every row of the table: on PostgreSQL a scan of the whole table (the
rating history at a million matches: two million rows, 70-160 ms, most of the
page's time), for a number an admin reads as "about so many". Unfiltered and
above ESTIMATED_ABOVE rows, the count is the planner's estimate of the table's
rows (kept by ANALYZE, which the recomputes and autovacuum run), and the page
says "about"; filtered or searched, or smaller, it is counted exactly. The
pages are numbered from the estimate: the last one may show fewer rows, or
the oldest rows lie beyond it (a filter or a search reaches them).
"""

from functools import cached_property

from django.contrib import admin
from django.contrib.admin import helpers
from django.core.paginator import Paginator
from django.db import connection
from django.utils.html import format_html
from django.utils.translation import gettext

from lib.bulk import estimated_rows
from lib.forms import QuickCheckboxInput
from lib.skip_scans import values_along_index

ESTIMATED_ABOVE = 100_000


class IndexedValuesFilter(admin.AllValuesFieldListFilter):
    """ModelAdmin.list_filter for a column of a few values (an event's format) and an index: the values read
    along the index (lib.skip_scans), not by a DISTINCT over every row on every page of the list."""

    def __init__(self, field, request, params, model, model_admin, field_path):
        super().__init__(field, request, params, model, model_admin, field_path)  # its choices a lazy DISTINCT
        self.lookup_choices = values_along_index(model_admin.get_queryset(request), field.name)


class EstimatedCountPaginator(Paginator):
    """ModelAdmin.paginator for tables of millions of rows (see the module's text)."""

    estimated = False  # whether `count` is an estimate: admin/pagination.html says "about"

    @cached_property
    def count(self) -> int:
        queryset = self.object_list  # as the admin passes it: filtered, searched and sorted
        unfiltered = not queryset.query.where and not queryset.query.distinct and not queryset.query.combinator
        if connection.vendor == "postgresql" and unfiltered:
            rows = estimated_rows(queryset.model._meta.db_table)
            if rows > ESTIMATED_ABOVE:
                self.estimated = True
                return rows
        return super().count


# The admin's own words, translated by its catalog (a name, not a literal: not extracted into the site's).
ACTION_LABEL = "Select this object for an action - {}"


class QuickActionCheckbox:
    """A ModelAdmin mixin: each row's action checkbox written by QuickCheckboxInput, the HTML of the admin's own
    (ModelAdmin.action_checkbox), without a template per row: a fifth of a 100-row list's rendering."""

    def action_checkbox(self, obj):
        attrs = {"class": "action-select", "aria-label": format_html(gettext(ACTION_LABEL), str(obj))}
        return QuickCheckboxInput(attrs, lambda value: False).render(helpers.ACTION_CHECKBOX_NAME, str(obj.pk))
