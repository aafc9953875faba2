"""Helpers for forms."""

import functools
from functools import partial

from django import forms
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy

from lib.escaping import escaped


def errors_to_form(form, error: ValidationError) -> None:
    """A service's ValidationError shown on the form: on its field when it names one, above the form otherwise."""
    if hasattr(error, "error_dict"):
        for field, problems in error.error_dict.items():
            form.add_error(field if field in form.fields else None, problems)
    else:
        form.add_error(None, error)


# A box where a player is named: a membership number, or a name picked from the suggestions as it is typed
# ("Name (number)": players.search.suggested_number reads the number back); static/js/suggest.js drives it.
PLAYER_BOX = {
    "autocomplete": "off",
    "data-suggest": lazy(functools.cache(partial(reverse, "players:suggest")), str)(),  # once: a results form has 900
    "placeholder": gettext_lazy("number or name"),
}


# Widgets written out in Python. Django renders each widget through its template, about half a millisecond a
# box: a results form of 900 rows (4,500 boxes) took two seconds to render. These write the same HTML as
# Django's templates (input.html, select.html, select_option.html and attrs.html), escaped the same way.


def _attributes(attrs: dict) -> str:
    """attrs.html: each attribute in order, a True one bare, a False one left out."""
    return "".join(
        f" {escaped(name)}" if value is True else f' {escaped(name)}="{escaped(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


class _WrittenInput:
    """render() of an <input> widget, as input.html writes it (checkbox.html includes input.html)."""

    def render(self, name, value, attrs=None, renderer=None):
        widget = self.get_context(name, value, attrs)["widget"]
        return _input(widget["type"], widget["name"], widget["value"], _attributes(widget["attrs"]))


def _input(kind: str, name: str, value, attributes: str) -> str:
    """input.html's <input>, its attributes written out already (_attributes)."""
    shown = "" if value is None else f' value="{escaped(value)}"'
    return mark_safe(f'<input type="{escaped(kind)}" name="{escaped(name)}"{shown}{attributes}>')  # all escaped


class QuickTextInput(_WrittenInput, forms.TextInput):
    pass


class QuickCheckboxInput(_WrittenInput, forms.CheckboxInput):
    pass


class FixedTextInput(QuickTextInput):
    """A text box whose own attributes are never changed once it is made (the box of a field that every row of
    a form of many rows shares): written out once per language, not escaped again for each of 900 rows."""

    def __init__(self, attrs=None):
        super().__init__(attrs)
        self._written: dict[str | None, str] = {}  # language -> the box's own attributes as HTML

    def __deepcopy__(self, memo):
        # A field copies its widget and then adds its own attributes (maxlength): the copy writes its own.
        copied = super().__deepcopy__(memo)
        copied._written = {}
        return copied

    def render(self, name, value, attrs=None, renderer=None):
        given = attrs or {}
        if given.keys() & self.attrs.keys():  # an attribute of its own replaced for this box: written whole
            return super().render(name, value, attrs, renderer)
        language = get_language()
        own = self._written.get(language)
        if own is None:
            own = self._written[language] = _attributes(self.attrs)
        # The box's own attributes, then those given (Widget.build_attrs).
        return _input(self.input_type, name, self.format_value(value), own + _attributes(given))


class QuickSelect(forms.Select):
    def render(self, name, value, attrs=None, renderer=None):
        widget = self.get_context(name, value, attrs)["widget"]
        if any(group_name for group_name, _, _ in widget["optgroups"]):
            return super().render(name, value, attrs, renderer)  # groups of options: Django's own template
        options = "".join(
            # select_option.html ends in a new line
            f'\n  <option value="{escaped(option["value"])}"{_attributes(option["attrs"])}>'
            f"{escaped(option['label'])}</option>\n"
            for _, group, _ in widget["optgroups"]
            for option in group
        )
        return mark_safe(f'<select name="{escaped(widget["name"])}"{_attributes(widget["attrs"])}>{options}\n</select>')
