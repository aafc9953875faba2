"""The rows of the forms results are typed into: a round's matches, an event's standings."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from lib.escaping import escaped

register = template.Library()

# What a row is called: in its first cell, and in each box's label for screen readers ("Match 12: Player 1").
ROW_NAMES = {
    "match": (gettext_lazy("Match"), gettext_lazy("Match %(number)s: %(label)s")),
    "row": (gettext_lazy("Row"), gettext_lazy("Row %(number)s: %(label)s")),
}
HAS_ERROR = ' class="has-error"'


def _help_id(formset, name: str) -> str:
    """The id of a column's help text, written once in the table's head (column_help) and named by each of the
    column's boxes (aria-describedby): not a copy of the text in each of 900 rows."""
    return f"{formset.prefix}-{name}-help"


@register.simple_tag
def column_help(formset, name: str):
    """The help text of the formset's column `name`, for screen readers, where its boxes find it."""
    help_text = formset.form.base_fields[name].help_text
    return format_html('<span class="visually-hidden" id="{}">{}</span>', _help_id(formset, name), help_text)


@register.simple_tag
def result_rows(formset, row_name: str):
    """Each form of `formset` as a table row: its number, then a cell per field with the field's box, a label
    naming row and field, and the field's errors; the form's own errors in a row below.

    Written here rather than as template loops: at about 0.15 ms a field in the template language, the
    standings of a 900-player event (4,500 boxes) took over a second to render. A box of a form not sent
    (the rows as stored) is written straight from its field and initial value (_unbound_box), without the
    BoundField Django makes for it: half of the rest.
    """
    heading, label_format = ROW_NAMES[row_name]
    heading, label_format = escaped(heading), str(label_format)
    labels = {}  # each column's label, translated once
    helped = {name: _help_id(formset, name) for name, field in formset.form.base_fields.items() if field.help_text}
    rows = []
    for number, form in enumerate(formset, start=1):
        cells = []
        form_errors = form.errors  # an unsent form's are none, unless a problem was placed on it
        for name, field in form.fields.items():
            label = labels.get(name) or labels.setdefault(name, str(field.label))
            if form.is_bound or name in form_errors or not _plain(field):
                bound = form[name]
                errors = bound.errors
                # The column's help and the box's errors: Django would name a help text of the box's own.
                described = " ".join(filter(None, [helped.get(name), errors and f"{bound.auto_id}_error"]))
                box = bound.as_widget(attrs={"aria-describedby": described} if described else None)
                box_id = bound.id_for_label
            else:
                errors = None
                box, box_id = _unbound_box(form, name, field, helped.get(name))
            marked, shown_errors = (HAS_ERROR, f"\n    {escaped(errors)}") if errors else ("", "")
            cells.append(
                f'\n  <td data-label="{escaped(label)}"{marked}>'
                f'\n    <label class="visually-hidden" for="{escaped(box_id)}">'
                f"{escaped(label_format % {'number': number, 'label': label})}</label>{escaped(box)}"
                f"{shown_errors}\n  </td>"
            )
        rows.append(
            f'<tr class="{"has-error" if form_errors else ""}" data-row="{number}">'
            f'\n  <th scope="row" data-label="{heading}">{number}</th>{"".join(cells)}\n</tr>'
        )
        if form.non_field_errors():
            rows.append(
                f'<tr class="has-error"><td></td><td colspan="{len(form.fields)}">'
                f"{escaped(form.non_field_errors())}</td></tr>"
            )
    return mark_safe("\n".join(rows))  # every part escaped above


def _plain(field) -> bool:
    """Whether a field's box is what _unbound_box writes: no attribute or value that Django adds for a required,
    disabled, hidden or localized field, or one with its initial value beside it."""
    return not (
        field.required or field.disabled or field.localize or field.show_hidden_initial or field.widget.is_hidden
    )


def _unbound_box(form, name: str, field, described: str | None) -> tuple[str, str]:
    """The box of a form not sent, and its id: what BoundField.as_widget writes for a field that is optional,
    enabled, without errors and never hidden (the rows' fields), its description given."""
    html_name = form.add_prefix(name)
    auto_id = form.auto_id
    box_id = auto_id % html_name if auto_id and "%s" in str(auto_id) else html_name if auto_id else ""
    attrs = {"aria-describedby": described} if described else {}
    if box_id:
        attrs["id"] = box_id
    value = field.prepare_value(form.get_initial_for_field(field, name))
    return field.widget.render(html_name, value, attrs), field.widget.id_for_label(box_id)
