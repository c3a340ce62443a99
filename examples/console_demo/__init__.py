"""A record store for `handoff console` to show: a few banking calls recorded through Engine."""
