"""The config pipeline: read -> parse -> validate -> build -> link -> compile, one module each.

Entry points live in `engine.loading.loader` (`load_config`, `check_paths`, `load_document`);
this package module imports nothing so that importing a model never loads the whole pipeline.
"""
