"""Test clients signed in as someone: the cast of tests/conftest.py, or any account."""

from django.test import Client


def client_of(user, **options) -> Client:
    """A client signed in as `user` (anonymous for None); `options` go to `Client` (enforce_csrf_checks, ...)."""
    client = Client(**options)
    if user is not None:
        client.force_login(user)
    return client
