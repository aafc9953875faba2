"""What the results layer tells the layers above it.

`results_changed` is sent by the services that change results (the bundle
import, an organizer's page, a correction, the admin site), once per change,
inside the change's transaction, through `events.services.results_changed_send`.
Receivers get:

- `kinds`: {(format, team size): the earliest date whose results changed}, for
  rated events only (a draft counts for nothing). Events know their kind, not
  the rating lists a kind feeds: that mapping is the ratings app's.
- `reason`: why, in words a run's history shows.
- `requested_by`: the user who made the change, or None.

Saving or deleting an Event, Match or Standing through the ORM sends nothing:
the service that does it says what changed, once for all its rows.
"""

from django.dispatch import Signal

results_changed = Signal()
