-- answers: Evaluation pass rate of each job (latest snapshot of each project), from the metrics layer
--   (view metric_evaluation_pass_rates, the pass rates the reports, diff and gates show).
-- columns: org, workspace, project_key (keys are unique only inside a workspace), evaluation_id, name,
--   job_status, items_passed, dataset_size, pass_rate (items_passed / dataset_size, 0-1, once every item
--   has an outcome: passed, failed, errored, infra_error or timed_out; the last four count as not
--   passed), source (recomputed from the item counts, or service: the job's analytics pass_rate when the
--   counts are missing and its analytics status is completed or failed), service_pass_rate (the
--   service's analytics.pass_rate, the cross-check).
-- exclusions: a queued or running job, or one cancelled before all its items ran, has pass_rate NULL
--   (no pass rate yet, never 0), and so does a job with neither item counts nor a final analytics
--   pass_rate. A job listed on two pages counts once.
SELECT
  org,
  workspace,
  project_key,
  evaluation_id,
  name,
  job_status,
  numerator AS items_passed,
  denominator AS dataset_size,
  round(pass_rate, 4) AS pass_rate,
  source,
  service_pass_rate
FROM latest_metric_evaluation_pass_rates
ORDER BY org, workspace, project_key, name, evaluation_id;
