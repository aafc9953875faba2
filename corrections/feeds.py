"""The correction log as an Atom feed (/corrections/feed/): each correction as the log shows it."""

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from corrections import selectors
from corrections.models import Correction

FEED_ITEMS = 50


class CorrectionLogFeed(Feed):
    feed_type = Atom1Feed
    title = gettext_lazy("Card game ratings: corrections")
    subtitle = gettext_lazy("Every result corrected, removed or added after its event was reported, newest first.")

    def link(self):
        return reverse("corrections:log")

    def items(self):
        return selectors.correction_list().select_related("corrected_by")[:FEED_ITEMS]

    def item_title(self, item: Correction) -> str:
        return _("%(event)s, round %(round)s: %(pairing)s") % {
            "event": item.event_name,
            "round": item.round,
            "pairing": item.pairing,
        }

    def item_description(self, item: Correction) -> str:
        return _("%(kind)s. Was: %(old)s. Now: %(new)s. Corrected by %(by)s: %(reason)s") % {
            "kind": item.get_kind_display(),
            "old": item.old_result,
            "new": item.new_result,
            "by": item.corrected_by_name,
            "reason": item.reason,
        }

    def item_pubdate(self, item: Correction):
        return item.corrected_at

    def item_updateddate(self, item: Correction):
        return item.corrected_at
