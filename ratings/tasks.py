from django_tasks import task

from ratings.services import recompute_run_execute, recompute_runs_recover


@task()
def recompute_task(run_id: int) -> dict:
    # Runs a stopped worker left behind are queued again first (cheap when there are none).
    recompute_runs_recover()
    run = recompute_run_execute(run_id=run_id)
    return {"run": run.pk, "status": run.status, "matches_rated": run.matches_rated}
