"""The config pipeline up to the validated set: read -> parse -> validate -> build -> link, one
module each. Compiling a set into a routing snapshot is `engine.routing.snapshot`'s.

Entry points live in `engine.loading.loader` (`load_config`, `check_paths`, `load_document`);
this package module imports nothing so that importing a model never loads the whole pipeline.
"""
