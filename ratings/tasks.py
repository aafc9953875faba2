from django_tasks import task

from ratings.services import recompute_run_execute


@task()
def recompute_task(run_id: int) -> dict:
    run = recompute_run_execute(run_id=run_id)
    return {"run": run.pk, "status": run.status, "matches_rated": run.matches_rated}
