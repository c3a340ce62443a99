"""Text normalization shared by config's checks and the router: the pipeline (`normalize`),
its settings (`spec`) and its English word tables (`speech`).

At the bottom of the package graph with the records: it imports nothing of the engine, so the
config stages that warn about keywords and the routing tables that match them normalize text
the same way without config depending on routing.
"""
