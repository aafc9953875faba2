"""The German catalog holds every text the code marks for translation, each translated: a page, form or
message added in English alone fails here (and `make messages` adds its strings to the catalog to translate).

The catalog is extracted again, as `make messages` does, from a copy of the project, so that the real one
is never written by a test.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

BASE = Path(settings.BASE_DIR)
CATALOG = Path("locale", "de", "LC_MESSAGES", "django.po")
NOT_SOURCES = shutil.ignore_patterns(
    ".*", "__pycache__", "tests", "media", "staticfiles", "node_modules", "bench-data", "*.mo", "*.sqlite3*"
)


def untranslated(catalog: Path) -> list[str]:
    """The msgids of the catalog with no German (empty, or fuzzy), with the files they come from."""
    text = "".join(
        subprocess.run(["msgattrib", kind, "--no-wrap", str(catalog)], capture_output=True, text=True).stdout
        for kind in ("--untranslated", "--only-fuzzy")
    )
    return [line for line in text.splitlines() if line.startswith(("#:", "msgid ")) and line != 'msgid ""']


@pytest.mark.skipif(not shutil.which("msgattrib"), reason="GNU gettext is installed by `make install`")
def test_every_text_marked_for_translation_has_its_german(tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(BASE, copy, ignore=NOT_SOURCES, symlinks=True)

    extracted = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "--locale", "de", "--no-obsolete", "--add-location", "file",
         "--ignore", "tests", "--ignore", "node_modules"],
        cwd=copy, capture_output=True, text=True, env={**os.environ, "DJANGO_DEBUG": "1"},
    )  # fmt: skip

    assert extracted.returncode == 0, extracted.stderr
    assert untranslated(copy / CATALOG) == [], "not translated yet (make messages, then translate in locale/de/)"


@pytest.mark.skipif(not shutil.which("msgfmt"), reason="GNU gettext is installed by `make install`")
def test_every_german_text_keeps_the_placeholders_of_its_english(tmp_path):
    checked = subprocess.run(
        ["msgfmt", "--check-format", "--check-header", "-o", str(tmp_path / "django.mo"), str(BASE / CATALOG)],
        capture_output=True,
        text=True,
    )

    assert checked.returncode == 0, checked.stderr
