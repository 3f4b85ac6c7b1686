"""What an operator sees of a running process: its log lines (``logs``) and its metrics (``metrics``).

Pure plumbing below the services: it knows no table and no route. The request boundary
(``app/api/middleware.py``) and the job runner (``app/jobs.py``) feed it; ``GET /metrics``
(``app/api/metrics.py``) and the worker's metrics port read it (docs/operations.md "Observe").
"""
