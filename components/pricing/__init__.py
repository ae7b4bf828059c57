"""What Vertex AI custom training costs per hour: a cited, dated price table
(prices.csv, written by tools/prices/refresh.py, loaded by table.py), a job's hourly price on a
strategy (hourly.py) and how a sum of money is shown (money.py).

Pure: no Pulumi, no Google client. Import submodules explicitly; this package imports nothing.
"""
