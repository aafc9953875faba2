"""The deployed code's name: what a page or a kept result made by an earlier release must not be taken for."""

import contextlib
import functools
import hashlib
import os
from pathlib import Path

from django.conf import settings

# What the digest of the deployed code reads, and what it leaves out (not served, or not ours).
_CODE_SUFFIXES = (".py", ".html", ".txt", ".css", ".js", ".svg", ".po")
_NOT_CODE = {"tests", "node_modules", "staticfiles", "__pycache__", "media"}


def site_version() -> str:
    """settings.SITE_VERSION, else a digest of the project's code, templates and static files."""
    return settings.SITE_VERSION or _code_digest()


@functools.cache
def _code_digest() -> str:
    """What this process serves, read once (about 2 MB, a few milliseconds): the same on every machine of a release."""
    digest = hashlib.sha256()
    base = Path(settings.BASE_DIR)
    for folder, folders, files in os.walk(base):
        folders[:] = sorted(name for name in folders if not name.startswith(".") and name not in _NOT_CODE)
        for name in sorted(files):
            if name.endswith(_CODE_SUFFIXES):
                path = Path(folder, name)
                digest.update(str(path.relative_to(base)).encode())
                with contextlib.suppress(OSError):  # unreadable (a dangling link): its name alone
                    digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
