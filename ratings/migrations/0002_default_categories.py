"""Seed the default rating categories of SPEC section 2."""

from django.db import migrations

DEFAULT_CATEGORIES = [
    # slug, name, ruleset, formats, team size, ranked after, display, extra
    ("constructed", "Constructed", "dci-2001", "standard block extended", 1, 10, "truncate", {}),
    ("limited", "Limited", "dci-2001", "sealed booster-draft rochester-draft", 1, 10, "truncate", {}),
    ("vintage", "Vintage", "dci-2001", "vintage type-1.5", 1, 10, "truncate", {}),
    ("composite", "Composite", "derived", "", 1, 10, "truncate", {"components": "constructed limited"}),
    ("team-constructed", "Team Constructed", "dci-2001", "standard block extended", 3, 10, "truncate", {}),
    ("team-limited", "Team Limited", "dci-2001", "sealed booster-draft rochester-draft", 3, 10, "truncate", {}),
    (
        "vtes",
        "V:TES",
        "vekn",
        "vtes",
        1,
        1,
        "round",
        {"inactivity_months": 12, "window_months": 18, "best_of": 8},
    ),
]


def create_defaults(apps, schema_editor):
    Category = apps.get_model("ratings", "Category")
    for position, (slug, name, ruleset, formats, team_size, ranked_after, rounding, extra) in enumerate(
        DEFAULT_CATEGORIES
    ):
        Category.objects.update_or_create(
            slug=slug,
            defaults={
                "name": name,
                "ruleset": ruleset,
                "formats": formats,
                "team_size": team_size,
                "ranked_after": ranked_after,
                "display_rounding": rounding,
                "position": position,
                **extra,
            },
        )


def remove_defaults(apps, schema_editor):
    Category = apps.get_model("ratings", "Category")
    Category.objects.filter(slug__in=[row[0] for row in DEFAULT_CATEGORIES]).delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_initial")]

    operations = [migrations.RunPython(create_defaults, remove_defaults)]
