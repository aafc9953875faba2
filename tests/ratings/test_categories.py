from ratings.models import Category


def test_the_default_categories_of_the_spec_are_seeded(db):
    rows = {
        category.slug: (category.ruleset, category.format_list, category.team_size, category.ranked_after)
        for category in Category.objects.all()
    }

    assert rows == {
        "constructed": ("dci-2001", ["standard", "block", "extended"], 1, 10),
        "limited": ("dci-2001", ["sealed", "booster-draft", "rochester-draft"], 1, 10),
        "vintage": ("dci-2001", ["vintage", "type-1.5"], 1, 10),
        "composite": ("derived", [], 1, 10),
        "team-constructed": ("dci-2001", ["standard", "block", "extended"], 3, 10),
        "team-limited": ("dci-2001", ["sealed", "booster-draft", "rochester-draft"], 3, 10),
        "vtes": ("vekn", ["vtes"], 1, 1),
    }


def test_composite_averages_constructed_and_limited(db):
    assert Category.objects.get(slug="composite").component_list == ["constructed", "limited"]


def test_vtes_counts_the_best_8_events_of_18_months_and_drops_after_12_idle_months(db):
    vtes = Category.objects.get(slug="vtes")

    assert (vtes.best_of, vtes.window_months, vtes.inactivity_months, vtes.display_rounding) == (8, 18, 12, "round")


def test_a_format_and_team_size_find_their_categories(db):
    assert [c.slug for c in Category.objects.rating(format="sealed", team_size=1)] == ["limited"]
    assert [c.slug for c in Category.objects.rating(format="sealed", team_size=3)] == ["team-limited"]
    assert Category.objects.rating(format="vtes", team_size=3) == []
