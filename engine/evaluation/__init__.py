"""Measuring routing on labelled corpora: reading them, routing every row, reporting metrics.

Used by `handoff eval` and `handoff learn`; the router itself never imports this package.
"""
