"""The correction log as an Atom feed (/corrections/feed/): each correction as the log shows it."""

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from corrections import selectors
from corrections.models import Correction

FEED_ITEMS = 50


class CorrectionLogFeed(Feed):
    feed_type = Atom1Feed
    title = "Card game ratings: corrections"
    subtitle = "Every result corrected, removed or added after its event was reported, newest first."

    def link(self):
        return reverse("corrections:log")

    def items(self):
        return selectors.correction_list().select_related("corrected_by")[:FEED_ITEMS]

    def item_title(self, item: Correction) -> str:
        return f"{item.event_name}, round {item.round}: {item.pairing}"

    def item_description(self, item: Correction) -> str:
        return (
            f"{item.get_kind_display()}. Was: {item.old_result}. Now: {item.new_result}. "
            f"Corrected by {item.corrected_by_name}: {item.reason}"
        )

    def item_pubdate(self, item: Correction):
        return item.corrected_at

    def item_updateddate(self, item: Correction):
        return item.corrected_at
