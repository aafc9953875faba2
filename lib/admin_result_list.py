"""The admin's result list (`{% quick_result_list cl %}`, templates/admin/change_list.html): the rows of a
changelist written as Django's `{% result_list cl %}` writes them, with less work per cell.

Django's admin works out each cell from scratch: the field behind the column,
the empty value's display, the column's classes, the value's display (a
choice's label looked up in a dict made anew, a number or date formatted
through the language's formats), the change link reversed, each piece through
format_html. A page of 100 rows of the rating history (15 columns) spent 40 of
its 50 ms at ten million matches drawing them. Here what depends on the
column is worked out once a page, a value's display once per distinct value
of a column (displays of numbers, dates, choices and booleans depend on the
value, the language and the time zone only, all fixed within a request), the
change link from one reversed pattern, and the HTML written as strings,
escaped as format_html escapes. The cells are the same HTML
(tests/corrections/test_admin_result_list.py compares them with Django's
for every list of the site); a list with editable columns (a formset) is left
to Django's own tag.
"""

import datetime
import decimal

from django.contrib.admin.templatetags.admin_list import (
    ResultList,
    _coerce_field_name,
    result_headers,
    result_hidden_fields,
    result_list,
)
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.templatetags.base import InclusionAdminNode
from django.contrib.admin.utils import (
    FieldIsAForeignKeyColumnName,
    _get_non_gfk_field,
    display_for_field,
    display_for_value,
    lookup_field,
)
from django.core.exceptions import FieldDoesNotExist, ObjectDoesNotExist
from django.db import models
from django.template import Library
from django.urls import NoReverseMatch, reverse
from django.utils.safestring import SafeString

from lib.escaping import escaped

register = Library()

# Values whose display is kept per column and page, by type and value (True == 1, and Decimal("1.0") == 1.00
# though each displays differently: the key tells them apart).
_KEPT_BY_VALUE = (int, bool, str, datetime.date, datetime.datetime, datetime.time)
_KEPT_BY_TEXT = (float, decimal.Decimal)
_PLACEHOLDER_PK = 2_147_483_647  # reversed in the change link's pattern, then replaced by each row's key
_MISSING = object()


def quick_result_list(cl):
    """The context of change_list_results.html, as Django's result_list(cl) makes it."""
    if cl.formset:
        return result_list(cl)
    headers = list(result_headers(cl))
    return {
        "cl": cl,
        "result_hidden_fields": list(result_hidden_fields(cl)),
        "result_headers": headers,
        "num_sorted_fields": sum(1 for header in headers if header["sortable"] and header["sorted"]),
        "results": quick_results(cl),
    }


@register.tag(name="quick_result_list")
def quick_result_list_tag(parser, token):
    return InclusionAdminNode(
        parser, token, func=quick_result_list, template_name="change_list_results.html", takes_context=False
    )


def quick_results(cl) -> list[ResultList]:
    """Each row of the page shown: its cells, as items_for_result(cl, row, None) yields them."""
    link = _ChangeLink(cl)
    columns = [_Column(cl, name, index, linked=link.in_column(name)) for index, name in enumerate(cl.list_display)]
    rows = []
    for row in cl.result_list:
        cells, first = [], True
        for column in columns:
            opening, shown = column.content(row)
            if column.linked:
                cells.append(link.cell(row, "th" if first else "td", opening, shown))
                first = False
            else:
                cells.append(SafeString(f"<td{opening}>{escaped(shown)}</td>"))
        rows.append(ResultList(None, cells))
    return rows


class _Column:
    """One column of the list: what items_for_result works out for each of its cells, worked out once."""

    def __init__(self, cl, name, index: int, *, linked: bool):
        self.name = name
        self.linked = linked  # the change link's column
        self.model_admin = cl.model_admin
        self.empty = cl.model_admin.get_empty_value_display()
        self.classes = [f"field-{_coerce_field_name(name, index)}"]
        self.field = self.method = None
        try:
            self.field = _get_non_gfk_field(cl.lookup_opts, name)
        except (FieldDoesNotExist, FieldIsAForeignKeyColumnName):
            if callable(name):
                self.method = name
            elif hasattr(cl.model_admin, name) and name != "__str__":
                self.method = getattr(cl.model_admin, name)
        self.kept: dict = {}  # (type, value, variant) -> display

    def content(self, row) -> tuple[str, object]:
        """The cell's class attribute and its content for `row`, as items_for_result works them out."""
        classes = self.classes
        empty = self.empty
        try:
            if self.field is not None:
                field, attr, value = self.field, None, getattr(row, self.name)
            elif self.method is not None:
                field, attr, value = None, self.method, self.method(row)
            else:  # an attribute of the row, a property, a path through relations
                field, attr, value = lookup_field(self.name, row, self.model_admin)
        except ObjectDoesNotExist:
            shown = empty
        else:
            empty = getattr(attr, "empty_value_display", empty)
            if isinstance(value, str) and value.strip() == "":
                value = ""
            if field is None or field.auto_created:
                if self.name == "action_checkbox":
                    classes = ["action-checkbox"]
                boolean = getattr(attr, "boolean", False)
                if isinstance(attr, property) and hasattr(attr, "fget"):
                    boolean = getattr(attr.fget, "boolean", False)
                shown = self._shown(value, lambda: display_for_value(value, empty, boolean), (empty, boolean))
                if isinstance(value, (datetime.date, datetime.time)):
                    classes = [*classes, "nowrap"]
            else:
                if isinstance(field.remote_field, models.ManyToOneRel):
                    related = getattr(row, field.name)
                    shown = empty if related is None else related
                else:
                    linked = self.linked
                    shown = self._shown(value, lambda: display_for_field(value, field, empty, avoid_link=linked), empty)
                if isinstance(field, (models.DateField, models.TimeField, models.ForeignKey)):
                    classes = [*classes, "nowrap"]
        return f' class="{" ".join(classes)}"', shown

    def _shown(self, value, display, variant):
        """display(), kept for this column's value when a value of its type always displays the same."""
        if value is None or type(value) in _KEPT_BY_VALUE:
            key = (type(value), value, variant)
        elif type(value) in _KEPT_BY_TEXT:
            key = (type(value), repr(value), variant)
        else:
            return display()
        shown = self.kept.get(key, _MISSING)
        if shown is _MISSING:
            shown = self.kept[key] = display()
        return shown


class _ChangeLink:
    """The list's link to each row's change page, in the column that carries it (the first, or those of
    list_display_links), from one reversed pattern."""

    def __init__(self, cl):
        self.cl = cl
        links = cl.list_display_links
        first = cl.list_display[:1]
        self.columns = () if links is None else (links or first)
        self.preserved = {"preserved_filters": cl.preserved_filters, "opts": cl.opts}
        self.key = str(cl.to_field) if cl.to_field else cl.lookup_opts.pk.attname
        try:
            name = f"admin:{cl.opts.app_label}_{cl.opts.model_name}_change"
            pattern = reverse(name, args=(_PLACEHOLDER_PK,), current_app=cl.model_admin.admin_site.name)
        except NoReverseMatch:
            self.pattern = self.query = None
        else:
            # The filters the list keeps (the query) are the same for every row's link: worked out once, they
            # cost 40 µs a row (the link resolved again, its query parsed and written again).
            if cl.preserved_filters:
                pattern = add_preserved_filters(self.preserved, pattern)
            self.pattern, mark, query = pattern.partition("?")
            self.query = mark + query

    def in_column(self, name) -> bool:
        return name in self.columns

    def cell(self, row, tag: str, opening: str, shown) -> SafeString:
        url = self._url(row)
        if url is None:
            content = escaped(shown)
        else:
            popup = f' data-popup-opener="{escaped(row.serializable_value(self.key))}"' if self.cl.is_popup else ""
            content = f'<a href="{escaped(url)}"{popup}>{escaped(shown)}</a>'
        return SafeString(f"<{tag}{opening}>{content}</{tag}>")

    def _url(self, row) -> str | None:
        key = getattr(row, self.cl.pk_attname)
        if self.pattern is not None and type(key) is int:  # admin's quote() leaves a number as it is
            return self.pattern.replace(str(_PLACEHOLDER_PK), str(key)) + self.query
        try:
            url = self.cl.url_for_result(row)
        except NoReverseMatch:
            return None
        return add_preserved_filters(self.preserved, url) if self.cl.preserved_filters else url
