"""The reload memory: everything hot reload keeps between loads of one config set, and the
loader that uses it. A look at the set's files (`look`) tells what changed; `load_again` runs
the pipeline's stages on that look, redoing only what changed, and gives what a cold load of
the same files gives (`engine.loading.pipeline.load_set`, which keeps nothing).

Modules: `keys` (what results are kept by), `memory` (the one record that keeps them), `look`
(the files as a reload sees them, and `Looks`, the latest look and file digests a reloader
keeps), `patch` (a rebuild that only replaced agents), `loader`.
"""
