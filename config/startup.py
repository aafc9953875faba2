"""What the site checks before it serves a request (config.wsgi, config.asgi)."""

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

SECRET_KEY_MISSING = (
    "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off (it is off unless DJANGO_DEBUG=1; "
    "for development use `make run`, or set DJANGO_DEBUG=1)"
)


def secret_key_required() -> None:
    """Refuse to serve without a secret key: sessions, password resets and CSRF tokens would not be safe."""
    try:
        key = settings.SECRET_KEY
    except ImproperlyConfigured:  # Django's own refusal of an empty key
        key = ""
    if not key:
        raise ImproperlyConfigured(SECRET_KEY_MISSING)
