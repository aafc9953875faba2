from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self):
        from events.signals import results_changed
        from ratings.receivers import results_changed_queue_recomputes

        results_changed.connect(results_changed_queue_recomputes, dispatch_uid="ratings.queue_recomputes")

        from ratings.jobs import recompute_job_wanted, snapshot_tidy_wanted
        from ratings.tasks import recompute_job_queue, snapshot_tidy_queue

        recompute_job_wanted.connect(recompute_job_queue, dispatch_uid="ratings.queue_recompute_job")
        snapshot_tidy_wanted.connect(snapshot_tidy_queue, dispatch_uid="ratings.queue_snapshot_tidy")
