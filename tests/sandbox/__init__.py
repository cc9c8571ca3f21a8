"""The sandbox that proves the guard corpora's labels with real shells (see runner.py)."""
