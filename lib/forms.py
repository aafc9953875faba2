"""Helpers for forms."""

from django.core.exceptions import ValidationError


def errors_to_form(form, error: ValidationError) -> None:
    """A service's ValidationError shown on the form: on its field when it names one, above the form otherwise."""
    if hasattr(error, "error_dict"):
        for field, problems in error.error_dict.items():
            form.add_error(field if field in form.fields else None, problems)
    else:
        form.add_error(None, error)
