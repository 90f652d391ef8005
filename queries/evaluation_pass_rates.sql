-- answers: Evaluation pass rates by project (evaluation jobs of the latest snapshot of each project).
-- columns: org, workspace, project_key (keys are unique only inside a workspace), jobs, jobs_with_analytics, items_passed, items_failed,
--   items_errored (errored + infra_error + timed_out), item_pass_rate (passed / (passed + failed), 0-1),
--   mean_pass_rate (mean of the jobs' analytics.pass_rate), jobs_without_pass_rate.
-- exclusions: jobs without analytics or with a null pass_rate do not enter mean_pass_rate (they are
--   counted in jobs_without_pass_rate, never averaged as 0). A job listed on two pages counts once.
SELECT
  s.org,
  s.workspace,
  j.project_key,
  count(*) AS jobs,
  count(*) FILTER (WHERE has_analytics) AS jobs_with_analytics,
  sum(items_passed) AS items_passed,
  sum(items_failed) AS items_failed,
  sum(coalesce(items_errored, 0) + coalesce(items_infra_error, 0) + coalesce(items_timed_out, 0)) AS items_errored,
  round(sum(items_passed) / nullif(sum(items_passed) + sum(items_failed), 0), 4) AS item_pass_rate,
  round(avg(analytics_pass_rate), 4) AS mean_pass_rate,
  count(*) FILTER (WHERE analytics_pass_rate IS NULL) AS jobs_without_pass_rate
FROM latest_evaluation_jobs j
JOIN snapshots s ON s.snapshot_id = j.snapshot_id
GROUP BY s.org, s.workspace, j.project_key
ORDER BY s.org, s.workspace, j.project_key;
