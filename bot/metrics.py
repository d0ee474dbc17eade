"""Prometheus metrics (served at GET /metrics on the bot)."""
from prometheus_client import Counter, Gauge, Histogram

DELIVERIES = Counter("recipe_review_deliveries_total", "Webhook deliveries by event and outcome",
                     ["event", "outcome"])
QUEUE_DEPTH = Gauge("recipe_review_queue_depth", "Jobs waiting in the queue")
JOB_SECONDS = Histogram("recipe_review_job_seconds", "Job duration by kind and status", ["kind", "status"],
                        buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120))
API_CALLS = Counter("recipe_review_github_calls_total", "GitHub API calls made by jobs", ["kind"])
RATE_REMAINING = Gauge("recipe_review_github_rate_limit_remaining", "Last seen x-ratelimit-remaining")
FINDINGS = Counter("recipe_review_findings_total", "Findings reported, by rule and severity", ["code", "severity"])
