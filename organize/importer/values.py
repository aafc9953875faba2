"""How the text of a bundle's cell reads as a value: the patterns and numbers the checks accept."""

import re
from datetime import date

MEMBERSHIP_NUMBER = re.compile(r"[A-Za-z0-9-]{1,32}")
SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,49}")
FORMAT = re.compile(r"[a-z0-9][a-z0-9.+-]{0,39}")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
HALF_POINTS = re.compile(r"[0-9]{1,5}(\.[0-9]+)?")
SMALL_INT_MAX = 32767


# The counts 0-999 as written with ASCII digits: what parse_count reads most, answered by one lookup.
SMALL_COUNTS = {str(number): number for number in range(1000)}


def parse_count(value: str, *, maximum: int = 2**31 - 1) -> int | None:
    """A non-negative whole number written with ASCII digits, or None."""
    small = SMALL_COUNTS.get(value)
    if small is not None:
        return small
    if value.isascii() and value.isdigit() and len(value) <= 10:
        number = int(value)
        if number <= maximum:
            return number
    return None


def parse_iso_date(value: str) -> date | None:
    if ISO_DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None
