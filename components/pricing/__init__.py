"""What Vertex AI custom training costs per hour: a cited, dated price table
(prices.json, table.py) and a job's hourly price on a strategy (hourly.py).

Pure: no Pulumi, no Google client. Import submodules explicitly; this package imports nothing.
"""
