"""The process's own operation, beside the layers: expected faults told apart from bugs
and logged one line per kind (faults.py), children that end with their parent
(lifeline.py). Imports nothing of the server; any layer may use it."""
