from django.shortcuts import render

from events import selectors
from ratings.models import Category
from ratings.selectors.leaders import category_leaders

HOME_LEADERS = 10


def home(request):
    categories = list(Category.objects.all())
    leaders = category_leaders(categories=categories, limit=HOME_LEADERS)
    return render(
        request,
        "home.html",
        {
            "summary": selectors.world_summary(),
            "recent_events": selectors.event_list_recent(),
            "top_lists": [(category, leaders[category.pk]) for category in categories],
        },
    )
