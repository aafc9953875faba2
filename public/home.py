from django.http import HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static

from events import selectors
from public.conditional import categories_read, every_list_state, public_page_cached
from ratings.selectors.leaders import category_leaders

HOME_LEADERS = 10


@public_page_cached(every_list_state)
def home(request):
    categories = categories_read(request)
    leaders = category_leaders(categories=categories, limit=HOME_LEADERS)
    recent = selectors.event_list_recent()
    winners = selectors.events_winner_names(event_ids=[event.pk for event in recent])
    for event in recent:
        event.winners = winners.get(event.pk, [])
    return render(
        request,
        "home.html",
        {
            "summary": selectors.world_summary(),
            "recent_events": recent,
            "top_lists": [(category, leaders[category.pk]) for category in categories],
        },
    )


def favicon(request):
    """Browsers ask for /favicon.ico whatever a page links: send them to the icon the pages link."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
