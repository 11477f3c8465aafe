"""The queue-time exporter: the whole wait of a GPU job, from GitHub queueing it to a runner
taking it, polled from GitHub's REST API with the scale sets' GitHub App.

Standalone and stdlib-only: these modules are shipped in a ConfigMap and run by the pinned
python image (components/pins.py `QUEUE_EXPORTER_PINS`) as `python -m queue_exporter CONFIG`;
they import nothing outside this folder. The App's JWT (RS256) is signed by the image's
`openssl` CLI (app_token.py); everything else is the standard library.

- settings.py: the typed config file the program writes (one message when it is wrong);
- github_api.py: requests with ETags (304), pagination (`Link`), primary and secondary
  rate limits (`Retry-After`), bounded bodies;
- app_token.py: the App JWT and the installation token;
- jobs.py: what a job from the API is, checked field by field (bad items are skipped and
  counted), and the persisted record of what was observed;
- poller.py: one poll: runs, their jobs, the histogram, the queue gauges;
- exposition.py: the Prometheus text format and the /metrics server.
"""
