from django.shortcuts import render

from events import selectors


def home(request):
    return render(
        request,
        "home.html",
        {"summary": selectors.world_summary(), "recent_events": selectors.event_list_recent()},
    )
