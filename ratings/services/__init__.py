"""Writes of the ratings app, one module per concern (nothing is imported from this package itself).

- `recompute`: rebuilding a category's history from a date or from the start,
  in one transaction under the category's row lock, and publishing it with
  today's list (`category_recompute`).
- `lists`: today's lists and their ranks (`CurrentRating`, `CurrentRank`):
  written whole, updated for those who played since a date, ranks recounted
  in the database, and lists built on an earlier day rebuilt by the job
  workers (`current_lists_refresh_stale`).
- `derived_lists`: a derived list (composite) built by the database from its
  components' lists, writing only the rows that differ (`derived_list_rebuild`;
  `derived_list_rebuild_aside` builds it on a second connection and takes the
  swaps' turn only to publish it).
- `list_fields`: the lists' and ranks' columns, shared by the two above.
- `runs`: recompute runs (`RecomputeRun`): queueing them
  (`recompute_enqueue`), claiming and carrying them out in a job under
  advisory locks (`recompute_run_execute`), and queueing again the runs of a
  worker that stopped (`recompute_runs_recover`).

Layers: runs -> recompute -> lists -> derived_lists -> list_fields. Reads they share with other modules are
in ratings.selectors (`history`: the rated history in rating order; `lists`:
standings and ranked rows). The jobs are ratings.tasks, which imports these
modules; the runs ask for a job through ratings.jobs.
"""
