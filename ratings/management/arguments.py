"""Arguments the recompute commands share: which categories, and from which date."""

from datetime import date

from django.core.management.base import CommandError
from django.db.models import QuerySet

from ratings.models import Category


def add_category_and_since(parser) -> None:
    parser.add_argument("--category", help="Category slug (default: every category).")
    parser.add_argument("--since", help="YYYY-MM-DD: keep the history before this date, recompute the rest.")


def categories_and_since(category: str | None, since: str | None) -> tuple[QuerySet[Category], date | None]:
    """The categories `--category` names (all without it) and the `--since` date, or a CommandError saying why."""
    categories = Category.objects.all()
    if category:
        categories = categories.filter(slug=category)
        if not categories:
            raise CommandError(f"unknown category {category!r}")
    try:
        return categories, date.fromisoformat(since) if since else None
    except ValueError:
        raise CommandError(f"--since {since!r} is not a date in the form YYYY-MM-DD") from None
