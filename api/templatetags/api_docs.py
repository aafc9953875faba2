import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()

CODE_SPAN = re.compile(r"`([^`]+)`")


@register.filter
def inline_code(text: str):
    """The OpenAPI descriptions' `backticks` as <code>, everything else escaped."""
    return mark_safe(CODE_SPAN.sub(r"<code>\1</code>", escape(text)))


@register.filter
def paragraphs(text: str) -> list[str]:
    return [" ".join(block.split()) for block in text.split("\n\n") if block.strip()]
