"""HTML escaping for pages that write many cells as plain strings."""

import html

from django.utils.functional import Promise
from django.utils.safestring import SafeData


def escaped(value) -> str:
    """conditional_escape() for the many cells of a big page: the same text, without the check for lazy
    arguments Django's escape() makes on every call (a tenth of the largest event page's rendering); plain
    text, the usual cell, is told apart first."""
    if type(value) is str:
        return html.escape(value)
    if isinstance(value, SafeData):
        return value.__html__()
    if isinstance(value, Promise):
        value = str(value)
    if hasattr(value, "__html__"):
        return value.__html__()
    return html.escape(str(value))
