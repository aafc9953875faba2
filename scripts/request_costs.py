#!/usr/bin/env python3
"""What crafted requests cost the site: the organizer pages' worst posts, and zip bombs for import_results.

    .venv/bin/python scripts/request_costs.py organize      # time and HTML size of each crafted organizer request
    .venv/bin/python scripts/request_costs.py bomb PATH.zip # writes a 1 MB zip of 1 GiB of newlines, then run:
    /usr/bin/time -v .venv/bin/python manage.py import_results --dry-run PATH.zip

Runs on a scratch SQLite database (DATABASE_URL, default /tmp/request-costs.sqlite3), never the site's own.
"""

import os
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/request-costs.sqlite3")

HEADER = "round,player1_id,player2_id,player1_games,player2_games,draws\n"


def organize() -> None:
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from tests.factories import EventFactory, OrganizerFactory

    setup_test_environment()
    call_command("migrate", verbosity=0)
    organizer = OrganizerFactory()
    event = EventFactory(organizer=organizer, player_count=2000)
    client = Client()
    client.force_login(organizer)
    base = f"/organize/events/{event.pk}/"
    numbers = " ".join(str(100_000 + n) for n in range(5000))
    unknown = HEADER + "".join(f"1,{200_000 + 2 * n},{200_001 + 2 * n},2,0,0\n" for n in range(1000))
    cases = {
        "5,000 numbers in the hidden field": lambda: client.post(base + "upload/", {"numbers": numbers}),
        "a million junk lines": lambda: client.post(
            base + "upload/", {"matches": SimpleUploadedFile("matches.csv", (HEADER + "x\n" * 1_000_000).encode())}
        ),
        "2,000 unknown players": lambda: client.post(
            base + "upload/", {"matches": SimpleUploadedFile("matches.csv", unknown.encode())}
        ),
        "round page, 5,000 numbers": lambda: client.post(base + "rounds/1/", {"numbers": numbers}),
    }
    for label, request in cases.items():
        start = time.perf_counter()
        response = request()
        print(f"{label}: {response.status_code}, {time.perf_counter() - start:.2f} s, {len(response.content):,} bytes")


def bomb(path: str) -> None:
    """A bundle whose players.csv ends with 1 GiB of newlines, deflated to about 1 MB."""
    header = "id,name,country,region\n1001,Alice Archer,DE,\n1002,Bruno Baptiste,FR,\n"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "events.csv", "id,name,date,format,k,players,level2_judge\nE1,Open,2024-01-06,standard,16,2,0\n"
        )
        archive.writestr("matches.csv", "event_id,round,player1_id,player2_id,player1_games,player2_games,draws\n"
                         "E1,1,1001,1002,2,0,0\n")  # fmt: skip
        with archive.open("players.csv", "w", force_zip64=True) as member:
            member.write(header.encode())
            block = b"\n" * (1 << 20)
            for _ in range(1024):
                member.write(block)
    print(f"{path}: {Path(path).stat().st_size:,} bytes, 1 GiB unpacked")


if __name__ == "__main__":
    if sys.argv[1:2] == ["organize"]:
        organize()
    elif sys.argv[1:2] == ["bomb"] and len(sys.argv) == 3:
        bomb(sys.argv[2])
    else:
        sys.exit(__doc__)
