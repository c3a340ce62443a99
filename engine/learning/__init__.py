"""Learning example utterances and keywords from labelled corpora (`handoff learn`).

Reads a config and a corpus, writes a new set; the router never imports this package.
"""
